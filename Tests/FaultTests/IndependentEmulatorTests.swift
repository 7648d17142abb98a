#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import Synchronization
import Testing
import TestSupport
import UCI
import Vocabulary

/// The agent against a DWM3001C emulator written from the specs and the README alone
/// (`Tests/IndependentEmulator/dwm3001c_emulator.py`, Python's standard library, no code of
/// this project): the emulator plays the device on a real pseudo-terminal with a tag, an Android
/// phone and an iPhone around it, and reports what it saw on its stdout. This test plays the
/// phones' apps: the requests over a real broker, and the iPhone's NISession run through the
/// emulator's control channel. What the two implementations agree on is what the spec says, not
/// what this project's own simulator happens to do.
@Suite struct IndependentEmulatorTests {
    /// The emulator's scene: a tag at 3 m, an Android phone at 2 m whose app chose its session, an
    /// iPhone at 0.5 m (distances exact: the emulator reports them in whole centimetres).
    static let scene = """
        {"tags": [{"short_address": 2, "distance_m": 3.0}],
         "android": [{"phone_address": "AB:CD", "distance_m": 2.0, "config_id": 1, "session_id": 1234567,
                      "session_key_info": "00112233445566aa", "channel": 9, "preamble_index": 11}],
         "iphones": [{"name": "iphone-eve", "distance_m": 0.5, "seed": 11}]}
        """

    final class World: @unchecked Sendable {
        let broker: MosquittoBroker
        let dir: TemporaryDirectory
        let emulator: IndependentEmulator
        let subscriber: MQTTTestSubscriber
        let agent: AgentProcess

        init(noRangingTimeout: String = "10s") async throws {
            broker = try await MosquittoBroker.start()
            dir = try TemporaryDirectory(prefix: "independent-emulator")
            let link = dir.file("dwm3001c")
            emulator = try await IndependentEmulator.start(scene: IndependentEmulatorTests.scene, link: link, directory: dir)
            subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/#"])
            agent = try AgentProcess(config: """
                gateway: {id: gw}
                device:
                  port: \(link)
                  ranging_interval: 100ms
                  session_key_info: "5a17c3e09b2d4f61"
                  peers: [{address: 0x0002, name: tool-cart}]
                phones: {no_ranging_timeout: \(noRangingTimeout)}
                mqtt: {url: \(broker.url), spool_dir: \(dir.file("spool"))}
                rules: \(exampleRulesPath)
                """, scenario: nil, directory: dir)
        }

        func stop() {
            agent.stop()
            subscriber.stop()
            emulator.stop()
            broker.stop()
        }

        func ask(_ request: String, name: String) async throws -> [String: Any] {
            let before = subscriber.messages.count
            try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/\(name)", message: request)
            let answer = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/\(name)", where: { message in
                subscriber.messages.firstIndex(of: message).map { $0 >= before } ?? false
            }, timeout: .seconds(20))
            return json(answer.payload)
        }

        /// A `range` of `peer` with status ok at exactly `meters` (the emulator's centimetres).
        func waitForExactRange(_ peer: String, meters: Double) async throws -> [String: Any] {
            let range = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/\(peer)/range", where: {
                let payload = json($0.payload)
                return payload["status"] as? String == "ok" && payload["distance_m"] as? Double == meters
            }, timeout: .seconds(20))
            return json(range.payload)
        }

        func ranges(_ peer: String) -> [[String: Any]] {
            subscriber.messages.filter { $0.topic == "uwb2mqtt/gw/peer/\(peer)/range" }.map { json($0.payload) }
        }

        /// The iPhone app's whole exchange: the accessory configuration data from the gateway, iOS's
        /// answer from the emulator (possibly `altered` on its way back), and the start.
        func startIPhone(_ name: String, altered: (inout ShareableConfigurationData) -> Void = { _ in }) async throws
            -> (shareable: ShareableConfigurationData, answer: [String: Any]) {
            let offer = try await ask(#"{"id": "acd", "name": "\#(name)", "platform": "ios"}"#, name: "phone_session")
            let offered = try #require(offer["data"] as? [String: Any], "\(offer)")
            let accessory = try #require(offered["accessory_configuration_data"] as? String)
            let seen = emulator.events.count
            emulator.send(["op": "iphone_run", "name": name, "accessory_configuration_data": accessory])
            let ios = try await emulator.waitForEvent(after: seen) {
                ($0["event"] as? String == "shareable_configuration_data" || $0["event"] as? String == "refused") && $0["name"] as? String == name
            }
            let text = try #require(ios["data"] as? String, "the emulated iPhone refused the gateway's accessory data: \(ios)")
            let shareable = try ShareableConfigurationData(bytes: try #require(Base64.decode(text)))
            var sent = shareable
            altered(&sent)
            let answer = try await ask(#"{"id": "start", "name": "\#(name)", "shareable_configuration_data": "\#(Base64.encode(sent.bytes))"}"#,
                                       name: "phone_session_start")
            return (shareable, answer)
        }
    }

    @Test func anIPhoneRangesWithExactDistancesBesideATagAndAnAndroidPhone() async throws {
        let world = try await World()
        defer { world.stop() }
        let tag = try await world.waitForExactRange("tool-cart", meters: 3.0)
        #expect(tag["azimuth_deg"] is NSNull, "one antenna: no angle")

        let android = try await world.ask("""
            {"id": "a", "name": "phone-ben", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD",
             "session_id": 1234567, "session_key_info": "00112233445566aa", "complex_channel": {"channel": 9, "preamble_index": 11}}
            """, name: "phone_session")
        #expect(android["ok"] as? Bool == true, "\(android)")
        _ = try await world.waitForExactRange("phone-ben", meters: 2.0)

        let (shareable, answer) = try await world.startIPhone("iphone-eve")
        #expect(answer["ok"] as? Bool == true, "\(answer)")
        let data = try #require(answer["data"] as? [String: Any], "\(answer)")
        #expect(data["session_id"] as? Int == Int(shareable.sessionID))
        let range = try await world.waitForExactRange("iphone-eve", meters: 0.5)
        #expect(range["session"] as? Int == Int(shareable.sessionID))
        // A tag standing within the counter zone's reach of 0.5 m enters it, as any peer.
        try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/iphone-eve/event",
                                                  where: { json($0.payload)["type"] as? String == "zone_enter" }, timeout: .seconds(20))

        // The three sessions ranged side by side: the tag's and the Android phone's went on.
        let tagRanges = world.ranges("tool-cart").count
        let androidRanges = world.ranges("phone-ben").count
        _ = try await world.subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: tagRanges + 5, timeout: .seconds(10))
        _ = try await world.subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/phone-ben/range", count: androidRanges + 5, timeout: .seconds(10))
        #expect(world.ranges("tool-cart").allSatisfy { $0["status"] as? String == "ok" && $0["distance_m"] as? Double == 3.0 })
        #expect(!world.emulator.commands.contains { $0["name"] as? String == "SESSION_STOP" })

        let stop = try await world.ask(#"{"id": "s", "name": "iphone-eve"}"#, name: "phone_session_stop")
        #expect(stop["ok"] as? Bool == true, "\(stop)")
        try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/iphone-eve/event",
                                                  where: { json($0.payload)["type"] as? String == "signal_lost" }, timeout: .seconds(10))
    }

    /// The same phone asking again (a new session scope of an app that chooses its session id)
    /// replaces its own session, as docs/phones.md promises: the same id is closed and opened
    /// again, and the phone ranges on under its name.
    @Test func anAndroidPhoneAskingAgainWithItsOwnSessionIDRangesOn() async throws {
        let world = try await World()
        defer { world.stop() }
        _ = try await world.waitForExactRange("tool-cart", meters: 3.0)
        func request(_ id: String) -> String { """
            {"id": "\(id)", "name": "phone-ben", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD",
             "session_id": 1234567, "session_key_info": "00112233445566aa", "complex_channel": {"channel": 9, "preamble_index": 11}}
            """ }
        let first = try await world.ask(request("first"), name: "phone_session")
        #expect(first["ok"] as? Bool == true, "\(first)")
        _ = try await world.waitForExactRange("phone-ben", meters: 2.0)
        let again = try await world.ask(request("again"), name: "phone_session")
        #expect(again["ok"] as? Bool == true, "\(again)")
        #expect((again["data"] as? [String: Any])?["session_id"] as? Int == 1234567)
        let ranged = world.ranges("phone-ben").count
        _ = try await world.subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/phone-ben/range", count: ranged + 3, timeout: .seconds(10))
        #expect(world.ranges("phone-ben").last?["status"] as? String == "ok")
        let inits = world.emulator.commands.filter { $0["name"] as? String == "SESSION_INIT" }
        #expect(inits.count == 3, "the tags' session, the phone's, the phone's again: \(inits)")
    }

    /// What iOS put in its answer is what the gateway must configure: each parameter that differs
    /// on the way (the app sends an altered blob) leaves the iPhone deaf to the gateway, and the
    /// gateway lets it go when it would give up.
    @Test(arguments: ["preamble", "static STS IV", "ranging interval", "session id", "channel"])
    func aParameterThatDiffersKeepsTheIPhoneFromRanging(parameter: String) async throws {
        let world = try await World(noRangingTimeout: "2s")
        defer { world.stop() }
        _ = try await world.waitForExactRange("tool-cart", meters: 3.0)
        let (_, answer) = try await world.startIPhone("iphone-eve") { sent in
            switch parameter {
            case "preamble": sent.preambleCodeIndex = sent.preambleCodeIndex == 12 ? 11 : sent.preambleCodeIndex + 1
            case "static STS IV": sent.staticSTSIV[0] ^= 0xFF
            case "ranging interval": sent.rangingIntervalMilliseconds += 24
            case "session id": sent.sessionID ^= 0x0100
            default: sent.channel = sent.channel == 9 ? 5 : 9
            }
        }
        #expect(answer["ok"] as? Bool == true, "the gateway's device ranges; the iPhone does not hear it: \(answer)")
        // The emulator says what the iPhone found different on the air.
        let mismatch = try await world.emulator.waitForEvent(after: 0) { $0["event"] as? String == "mismatch" && $0["peer"] as? String == "iphone-eve" }
        #expect(!"\(mismatch["differences"] ?? "")".isEmpty, "\(mismatch)")
        await eventually("the gateway letting the iPhone go", timeout: 20) {
            world.agent.logLines.contains { $0.contains("phone iphone-eve: no successful round within 2 s of the start") }
        }
        #expect(world.ranges("iphone-eve").allSatisfy { $0["status"] as? String != "ok" }, "no successful range")
        #expect(world.ranges("tool-cart").last?["status"] as? String == "ok", "the tag ranged on")
    }

    /// Bad requests are answered with an error naming what is wrong, and nothing reaches the device.
    @Test func badRequestsGetAClearErrorAndReachNoDevice() async throws {
        let world = try await World()
        defer { world.stop() }
        _ = try await world.waitForExactRange("tool-cart", meters: 3.0)
        let offer = try await world.ask(#"{"id": "acd", "name": "iphone-eve", "platform": "ios"}"#, name: "phone_session")
        #expect(offer["ok"] as? Bool == true, "\(offer)")
        let accessory = try #require((offer["data"] as? [String: Any])?["accessory_configuration_data"] as? String)
        let seen = world.emulator.events.count
        world.emulator.send(["op": "iphone_run", "name": "iphone-eve", "accessory_configuration_data": accessory])
        let ios = try await world.emulator.waitForEvent(after: seen) { $0["event"] as? String == "shareable_configuration_data" }
        let good = try #require(ios["data"] as? String)
        let cases: [(String, String, String)] = [
            (#"{"id": 1, "name": "iphone-eve", "shareable_configuration_data": "AQAB*ABl"}"#, "phone_session_start", "is not base64"),
            (#"{"id": 2, "name": "iphone-eve", "shareable_configuration_data": "AQEC"}"#, "phone_session_start", "shareable_configuration_data is 3 bytes"),
            (#"{"id": 3, "name": "iphone-fay", "shareable_configuration_data": "\#(good)"}"#, "phone_session_start", "no accessory configuration is waiting"),
            (#"{"id": 4, "name": "tool-cart", "platform": "ios"}"#, "phone_session", "is the configured peer tool-cart's"),
            (#"{"id": 5, "name": "phone-ben", "phone_role": "controlee", "config_id": 7, "phone_address": "AB:CD"}"#, "phone_session", "config_id"),
        ]
        for (request, name, message) in cases {
            let answer = try await world.ask(request, name: name)
            #expect(answer["ok"] as? Bool == false)
            #expect((answer["error"] as? String)?.contains(message) == true, "\(request) → \(answer)")
        }
        let inits = world.emulator.commands.filter { $0["name"] as? String == "SESSION_INIT" }
        #expect(inits.count == 1, "only the tags' session reached the device: \(inits)")
    }
}

/// `Tests/IndependentEmulator/dwm3001c_emulator.py` as a child process: its scene in a file, its
/// control channel a FIFO on its stdin, its reports (one JSON object per line) in a file that
/// the test reads back. Stopped by PID (`ChildProcess`), also when a test fails.
final class IndependentEmulator: Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../IndependentEmulator/dwm3001c_emulator.py").standardized.path

    let process: ChildProcess
    let control: Int32
    let stdoutPath: String

    private init(process: ChildProcess, control: Int32, stdoutPath: String) {
        self.process = process
        self.control = control
        self.stdoutPath = stdoutPath
    }

    static func start(scene: String, link: String, directory: TemporaryDirectory) async throws -> IndependentEmulator {
        let scenePath = directory.file("scene.json")
        try scene.write(toFile: scenePath, atomically: true, encoding: .utf8)
        let fifo = directory.file("emulator-control")
        guard mkfifo(fifo, 0o600) == 0 else { throw TestSupportError.system(call: "mkfifo", errno: errno) }
        let stdoutPath = directory.file("emulator.out")
        let process = try ChildProcess(executable: "/usr/bin/env", arguments: ["python3", script, "--link", link, "--scenario", scenePath],
                                       stdoutPath: stdoutPath, stderrPath: directory.file("emulator.err"), stdinFIFO: fifo)
        // The child holds the FIFO open for reading, so this open does not wait.
        let control = open(fifo, O_WRONLY | O_NONBLOCK)
        let emulator = IndependentEmulator(process: process, control: control, stdoutPath: stdoutPath)
        guard control >= 0 else {
            emulator.stop()
            throw TestSupportError.system(call: "open", errno: errno)
        }
        _ = try await emulator.waitForEvent(after: 0) { $0["event"] as? String == "ready" }
        return emulator
    }

    /// Everything the emulator reported so far, in order.
    var events: [[String: Any]] {
        guard let text = try? String(contentsOfFile: stdoutPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// The host's commands as the emulator decoded them.
    var commands: [[String: Any]] { events.filter { $0["event"] as? String == "command" } }

    /// One control operation, as a JSON line.
    func send(_ operation: [String: String]) {
        guard let data = try? JSONSerialization.data(withJSONObject: operation) else { return }
        let line = Array(data) + [0x0A]
        _ = line.withUnsafeBytes { write(control, $0.baseAddress, $0.count) }
    }

    /// The first report after the first `after` ones that satisfies `condition`.
    func waitForEvent(after: Int, timeout: Double = 20, _ condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
        var found: [String: Any]?
        let exited = await waitUntil(timeout: timeout) {
            found = events.dropFirst(after).first(where: condition)
            return found != nil || !process.isRunning
        }
        guard exited, let found else {
            let stderr = (try? String(contentsOfFile: process.stderrPath, encoding: .utf8)) ?? ""
            throw TestSupportError.timedOut(waitingFor: "the emulator's report", after: .seconds(timeout),
                                            detail: "\(process.exitStatus.map { "\($0)" } ?? "running"); stderr: \(stderr.suffix(2000))")
        }
        return found
    }

    func stop() {
        process.terminate()
        if control >= 0 { close(control) }
    }
}
