import SimulatorHosting
import Foundation
import Gateway
import Simulator
import Synchronization
import Testing
import TestSupport
import UCI

/// Phones as peers, end to end: the agent and a real broker, the simulator behind a real
/// pseudo-terminal in this process with an Android phone among its peers, and the test playing
/// the phone's app: it asks with `phone_session`, builds the phone's parameters from the answer
/// exactly as Jetpack's `RangingParameters` would be built, and starts the phone. The simulated
/// phone ranges only when the gateway's SESSION_SET_APP_CONFIG matches what Jetpack puts on the
/// air.
@Suite struct PhoneSessionEndToEndTests {
    static let phone = UWBAddress(0xAB, 0xCD)

    /// A tag standing at 3 m; the phone walks from 3 m to half a metre in six seconds and stays.
    static let scenario = Scenario(
        name: "phone", seed: 5, device: ScenarioDevice(hasAoA: false, rangingInterval: 0.1), noise: .none,
        peers: [PeerTrack(address: 2, name: "tool-cart", path: [.init(t: 0, distance: 3)]),
                PeerTrack(address: phone.shortAddress, name: "phone",
                          path: [.init(t: 0, distance: 3), .init(t: 6, distance: 0.5), .init(t: 600, distance: 0.5)],
                          phone: startedByItsApp(phone)),
                PeerTrack(address: second.shortAddress, name: "second phone", path: [.init(t: 0, distance: 2)],
                          phone: startedByItsApp(second))])

    /// A phone that answers nothing until the test, as its app, starts it with the gateway's answer.
    static func startedByItsApp(_ address: UWBAddress) -> ScenarioPhone {
        ScenarioPhone(parameters: PhoneRangingParameters(role: .controlee, address: address, gatewayAddress: UWBAddress(0, 0),
                                                         sessionID: 1, sessionKeyInfo: .qorvoExample), startAt: nil)
    }
    static let second = UWBAddress(0x12, 0x34)

    /// What the simulator logged: its diagnoses of the phone.
    final class SimulatorLog: Sendable {
        let lines = Mutex<[String]>([])
    }

    /// The world of one test: stopped by PID in reverse order whatever happens.
    final class World: @unchecked Sendable {
        let broker: MosquittoBroker
        let dir: TemporaryDirectory
        let host: SimulatorHost
        let subscriber: MQTTTestSubscriber
        let agent: AgentProcess
        let simulatorLog = SimulatorLog()

        /// `noRangingTimeout`: how long the gateway waits for a phone's first successful round. The
        /// default's 10 s leaves a test process slowed by a loaded machine time to start the
        /// simulated phone after the answer; the test of a phone that never ranges shortens it.
        init(scenario: Scenario = PhoneSessionEndToEndTests.scenario, noRangingTimeout: String = "10s",
             rules: String = exampleRulesPath, metricsInterval: String = "30s", record: String? = nil) async throws {
            broker = try await MosquittoBroker.start()
            dir = try TemporaryDirectory(prefix: "phone-session")
            let link = dir.file("dwm3001c")
            let log = simulatorLog
            host = try SimulatorHost(scenario: scenario, linkPath: link) { line in log.lines.withLock { $0.append(line) } }
            subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/#"])
            let config = """
                gateway: {id: gw}
                device:
                  port: \(link)
                  ranging_interval: 100ms
                  session_key_info: "5a17c3e09b2d4f61"
                  peers: [{address: 0x0002, name: tool-cart}]
                phones: {no_ranging_timeout: \(noRangingTimeout)}
                mqtt: {url: \(broker.url), spool_dir: \(dir.file("spool")), metrics_interval: \(metricsInterval)}
                rules: \(rules)
                """ + (record.map { "\nrecord: \($0)" } ?? "")
            agent = try AgentProcess(config: config, scenario: nil, directory: dir)
        }

        func stop() {
            agent.stop()
            subscriber.stop()
            host.stop()
            broker.stop()
        }

        /// The configured tag ranges: the device is up, before a phone asks for a session.
        func waitForTheTagToRange() async throws {
            _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 3, timeout: .seconds(20))
        }

        func ask(_ request: String, name: String = "phone_session") async throws -> [String: Any] {
            let before = subscriber.messages.count
            try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/\(name)", message: request)
            let answer = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/\(name)", where: { message in
                subscriber.messages.firstIndex(of: message).map { $0 >= before } ?? false
            }, timeout: .seconds(20))
            return json(answer.payload)
        }

        /// What the phone's app does with the answer: Jetpack's RangingParameters from `data`.
        func parameters(_ data: [String: Any], role: PhoneRangingParameters.Role, rate: PhoneRangingParameters.UpdateRate,
                        phone: UWBAddress = PhoneSessionEndToEndTests.phone) throws -> PhoneRangingParameters {
            func value<T>(_ key: String, in object: [String: Any] = data) throws -> T {
                try #require(object[key] as? T, "\(key) in \(object)")
            }
            let channel: [String: Any] = try value("complex_channel")
            let gatewayAddress: String = try value("gateway_address"), key: String = try value("session_key_info")
            let configID: Int = try value("config_id"), sessionID: Int = try value("session_id")
            let number: Int = try value("channel", in: channel), preamble: Int = try value("preamble_index", in: channel)
            return PhoneRangingParameters(
                role: role, configID: UInt8(configID), address: phone,
                gatewayAddress: try #require(UWBAddress(gatewayAddress)), sessionID: UInt32(sessionID),
                sessionKeyInfo: try #require(SessionKeyInfo(hex: key)), channel: UInt8(number), preambleIndex: UInt8(preamble),
                updateRate: rate)
        }

        func phoneRanges(_ peer: String) -> [[String: Any]] {
            subscriber.messages.filter { $0.topic == "uwb2mqtt/gw/peer/\(peer)/range" }.map { json($0.payload) }
        }

        func events(_ peer: String) -> [[String: Any]] {
            subscriber.messages.filter { $0.topic == "uwb2mqtt/gw/peer/\(peer)/event" }.map { json($0.payload) }
        }
    }

    @Test func aControleePhoneRangesAfterOneRequestAsANamedPeerWithEvents() async throws {
        let world = try await World()
        defer { world.stop() }
        _ = try await world.subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 5, timeout: .seconds(20))

        let answer = try await world.ask(#"{"id": "p1", "name": "phone-ben", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD", "update_rate": "frequent"}"#)
        #expect(answer["id"] as? String == "p1")
        #expect(answer["ok"] as? Bool == true, "\(answer)")
        let data = try #require(answer["data"] as? [String: Any])
        #expect(data["gateway_role"] as? String == "controller" && data["gateway_address"] as? String == "00:00")
        #expect(data["ranging_interval_ms"] as? Int == 120 && data["start_within_ms"] as? Int == 10_000)
        let sessionID = try #require(data["session_id"] as? Int)
        #expect(sessionID >= 1 && sessionID <= 0x7FFF_FFFF && sessionID != 42)
        let key = try #require(data["session_key_info"] as? String)
        #expect(key.count == 16 && key != "5a17c3e09b2d4f61", "a random key per session")

        world.host.startPhone(try world.parameters(data, role: .controlee, rate: .frequent))

        // The phone is a peer like any tag: ranges under its name, in its own session, with events.
        let range = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-ben/range",
                                                              where: { json($0.payload)["status"] as? String == "ok" }, timeout: .seconds(20))
        #expect(json(range.payload)["mac"] as? String == "0xCDAB")
        #expect(json(range.payload)["session"] as? Int == sessionID)
        let enter = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-ben/event",
                                                              where: { json($0.payload)["type"] as? String == "zone_enter" }, timeout: .seconds(30))
        #expect(json(enter.payload)["rule"] as? String == "counter")
        // The tags' session ranged on beside it.
        let cart = world.phoneRanges("tool-cart").count
        _ = try await world.subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: cart + 5, timeout: .seconds(10))
        #expect(world.phoneRanges("tool-cart").allSatisfy { $0["session"] as? Int == 42 })

        // Stopped on request: its link is lost (session_stopped), the device stops its session.
        let stop = try await world.ask(#"{"id": 2, "name": "phone-ben"}"#, name: "phone_session_stop")
        #expect(stop["ok"] as? Bool == true, "\(stop)")
        let lost = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-ben/event",
                                                             where: { json($0.payload)["type"] as? String == "signal_lost" }, timeout: .seconds(10))
        #expect((json(lost.payload)["reason"] as? [String: Any])?["cause"] as? String == "session_stopped")
        await eventually("SESSION_DEINIT of the phone's session") {
            world.host.commandsSeen.contains(.sessionDeinit(sessionHandle: 2))
        }
        #expect(world.host.commandsSeen.contains(.sessionStop(sessionHandle: 2)))
        #expect(!world.host.commandsSeen.contains(.sessionStop(sessionHandle: 1)), "the tags' session was not touched")
    }

    @Test func aControllerPhoneMakesTheGatewayItsControlee() async throws {
        let world = try await World()
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let answer = try await world.ask("""
            {"id": "c", "name": "phone-cleo", "phone_role": "controller", "config_id": 1, "phone_address": "AB:CD",
             "complex_channel": {"channel": 9, "preamble_index": 11}, "session_id": 777, "session_key_info": "0102030405060708"}
            """)
        #expect(answer["ok"] as? Bool == true, "\(answer)")
        let data = try #require(answer["data"] as? [String: Any])
        #expect(data["gateway_role"] as? String == "controlee" && data["session_id"] as? Int == 777)
        #expect(data["session_key_info"] as? String == "0102030405060708")
        #expect((data["complex_channel"] as? [String: Any])?["preamble_index"] as? Int == 11)
        world.host.startPhone(try world.parameters(data, role: .controller, rate: .automatic))
        let range = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-cleo/range",
                                                              where: { json($0.payload)["status"] as? String == "ok" }, timeout: .seconds(20))
        #expect(json(range.payload)["session"] as? Int == 777)
    }

    /// The bar's last clause: a deliberately wrong parameter gives no ranging, and a diagnosis
    /// that names it; the gateway lets the phone go when the phone would give up.
    @Test func aWrongParameterGivesNoRangingAndADiagnosisNamingIt() async throws {
        // 15 s: the phone must range before the gateway lets it go, or there is nothing to
        // diagnose. On CI's loaded cores the test's phone started more than 5 s after the
        // gateway's session for it ranged, and the simulator never saw them meet.
        let world = try await World(noRangingTimeout: "15s")
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let answer = try await world.ask(#"{"id": "w", "name": "phone-dan", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD"}"#)
        #expect(answer["ok"] as? Bool == true, "\(answer)")
        var parameters = try world.parameters(try #require(answer["data"] as? [String: Any]), role: .controlee, rate: .automatic)
        parameters.preambleIndex = parameters.preambleIndex == 12 ? 11 : parameters.preambleIndex + 1
        world.host.startPhone(parameters)

        let expected = "PREAMBLE_CODE_INDEX: gateway \(parameters.preambleIndex == 12 ? 11 : parameters.preambleIndex - 1), phone \(parameters.preambleIndex)"
        let diagnosed = await eventually("the simulator naming the parameter that differs", timeout: 30) {
            world.simulatorLog.lines.withLock { $0 }.contains { $0.contains("no ranging") && $0.contains(expected) }
        }
        #expect(diagnosed, "\(world.simulatorLog.lines.withLock { $0 }.filter { $0.contains("no ranging") })")
        let lost = await eventually("the gateway letting the phone go", timeout: 40) {
            world.agent.logLines.contains { $0.contains("phone phone-dan: no successful round within 15 s of the start") }
        }
        #expect(lost)
        #expect(world.phoneRanges("phone-dan").allSatisfy { $0["status"] as? String != "ok" }, "no successful range")
        await eventually("SESSION_DEINIT of the phone's session") { world.host.commandsSeen.contains(.sessionDeinit(sessionHandle: 2)) }
        // Let go before its first good round, the phone's link is lost, not `connecting` for good:
        // one signal_lost (from connecting) and the retained state says so.
        await eventually("the phone's state lost") {
            world.subscriber.messages.last { $0.topic == "uwb2mqtt/gw/peer/phone-dan/state" }.map { json($0.payload)["link"] as? String == "lost" } ?? false
        }
        let lostEvents = world.events("phone-dan").filter { $0["type"] as? String == "signal_lost" }
        #expect(lostEvents.count == 1 && lostEvents.first?["from"] as? String == "connecting", "\(lostEvents)")
        #expect((lostEvents.first?["reason"] as? [String: Any])?["cause"] as? String == "session_stopped", "\(lostEvents)")
        let retained = try await MQTTTestSubscriber.start(broker: world.broker, topics: ["uwb2mqtt/gw/peer/phone-dan/state"])
        defer { retained.stop() }
        let state = try await retained.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-dan/state", timeout: .seconds(5))
        #expect(json(state.payload)["link"] as? String == "lost" && state.retained, "\(state.payload)")
    }

    @Test func badRequestsGetAClearErrorAndOpenNothing() async throws {
        let world = try await World()
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let cases: [(String, String)] = [
            (#"{"id": 1, "name": "p", "phone_role": "controlee", "config_id": 1, "phone_address": "ABC:D"}"#, "phone_address must be"),
            (#"{"id": 2, "name": "p", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD", "session_key_info": "0102030405"}"#,
             "session_key_info must be 8 bytes"),
            (#"{"id": 3, "name": "p", "phone_role": "controller", "config_id": 1, "phone_address": "AB:CD", "complex_channel": {"channel": 9, "preamble_index": 13}}"#,
             "complex_channel.preamble_index must be 9 to 12"),
            (#"{"id": 4, "name": "p", "phone_role": "controlee", "config_id": 5, "phone_address": "AB:CD"}"#, "config_id must be 1"),
        ]
        for (request, message) in cases {
            let answer = try await world.ask(request)
            #expect(answer["ok"] as? Bool == false)
            #expect((answer["error"] as? String)?.hasPrefix(message) == true, "\(answer)")
        }
        // A second phone on a unicast session.
        let first = try await world.ask(#"{"id": 5, "name": "phone-eve", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD", "session_id": 4242}"#)
        #expect(first["ok"] as? Bool == true, "\(first)")
        let second = try await world.ask(#"{"id": 6, "name": "phone-fay", "phone_role": "controlee", "config_id": 1, "phone_address": "12:34", "session_id": 4242}"#)
        #expect(second["ok"] as? Bool == false)
        #expect((second["error"] as? String)?.contains("is unicast (config_id 1) and has its phone") == true, "\(second)")
        #expect(world.host.commandsSeen.filter { if case .sessionInit = $0 { true } else { false } }.count == 2, "the tags' and phone-eve's")
    }

    /// Several phones: config 2, one one-to-many session; the second phone joins it through the
    /// multicast list and gets the same session id and key.
    @Test func twoPhonesShareOneOneToManySession() async throws {
        let world = try await World()
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let first = try await world.ask(#"{"id": "g", "name": "phone-gus", "phone_role": "controlee", "config_id": 2, "phone_address": "AB:CD"}"#)
        #expect(first["ok"] as? Bool == true, "\(first)")
        let firstData = try #require(first["data"] as? [String: Any])
        world.host.startPhone(try world.parameters(firstData, role: .controlee, rate: .automatic))
        let second = try await world.ask(#"{"id": "h", "name": "phone-hal", "phone_role": "controlee", "config_id": 2, "phone_address": "12:34"}"#)
        #expect(second["ok"] as? Bool == true, "\(second)")
        let secondData = try #require(second["data"] as? [String: Any])
        #expect(secondData["session_id"] as? Int == firstData["session_id"] as? Int)
        #expect(secondData["session_key_info"] as? String == firstData["session_key_info"] as? String)
        #expect(secondData["ranging_interval_ms"] as? Int == 200)
        world.host.startPhone(try world.parameters(secondData, role: .controlee, rate: .automatic, phone: Self.second))
        for peer in ["phone-gus", "phone-hal"] {
            try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/\(peer)/range",
                                                      where: { json($0.payload)["status"] as? String == "ok" }, timeout: .seconds(20))
        }
        #expect(world.host.commandsSeen.contains(.sessionUpdateControllerMulticastList(
            sessionHandle: 2, action: .add, controlees: [Controlee(shortAddress: Self.second.shortAddress)])))
    }

    /// A firmware that holds one session at a time: the tags' session is never stopped for a
    /// phone, and the answer says why there is no phone session.
    @Test func aDeviceWithOneSessionSaysSoAndKeepsTheTags() async throws {
        var scenario = Self.scenario
        scenario.device.maxSessions = 1
        let world = try await World(scenario: scenario)
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let answer = try await world.ask(#"{"id": "one", "name": "phone-ida", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD"}"#)
        #expect(answer["ok"] as? Bool == false)
        #expect((answer["error"] as? String)?.contains("ERROR_MAX_SESSIONS_EXCEEDED") == true, "\(answer)")
        let cart = world.phoneRanges("tool-cart").count
        _ = try await world.subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: cart + 3, timeout: .seconds(10))
        #expect(!world.host.commandsSeen.contains(.sessionStop(sessionHandle: 1)), "the tags' session ranged on")
    }

    /// A name in use by a phone is refused when another address asks for it, naming the name;
    /// with `"replace": true` the running phone's session ends and the new one takes the name.
    @Test func aNameInUseIsRefusedOrReplacedAsAsked() async throws {
        let world = try await World()
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let first = try await world.ask(#"{"id": 1, "name": "phone-gus", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD"}"#)
        #expect(first["ok"] as? Bool == true, "\(first)")
        // Her phone ranges, so that nothing but a request can end her session (a phone that never
        // ranges is let go after `no_ranging_timeout`, which a loaded machine can reach here).
        world.host.startPhone(try world.parameters(try #require(first["data"] as? [String: Any]), role: .controlee, rate: .automatic))
        try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-gus/range",
                                                  where: { json($0.payload)["status"] as? String == "ok" }, timeout: .seconds(20))
        let taken = try await world.ask(#"{"id": 2, "name": "phone-gus", "phone_role": "controlee", "config_id": 1, "phone_address": "12:34"}"#)
        #expect(taken["ok"] as? Bool == false)
        #expect((taken["error"] as? String)?.hasPrefix(#"the name "phone-gus" is in use by the phone at AB:CD"#) == true, "\(taken)")
        let firstSession = try #require((first["data"] as? [String: Any])?["session_id"] as? Int)
        // The refusal reached nothing: the first phone's session was not wound down for it.
        #expect(!world.host.commandsSeen.contains { if case .sessionDeinit = $0 { true } else { false } })
        let replaced = try await world.ask(#"{"id": 3, "name": "phone-gus", "phone_role": "controlee", "config_id": 1, "phone_address": "12:34", "replace": true}"#)
        #expect(replaced["ok"] as? Bool == true, "\(replaced)")
        #expect((replaced["data"] as? [String: Any])?["phone_address"] as? String == "12:34")
        #expect((replaced["data"] as? [String: Any])?["session_id"] as? Int != firstSession)
        await eventually("the first phone's session wound down") {
            world.host.commandsSeen.contains { if case .sessionDeinit = $0 { true } else { false } }
        }
    }

    /// 200 `phone_session` requests as fast as mosquitto_pub sends them, each for another phone:
    /// a few at once and then one a second reach the device (each a SESSION_INIT on the serial
    /// link), the rest are refused at once saying when to try again and counted, and the log says
    /// so once per 10 s with a count, not once per request (20,000 gave 12,168 lines and a
    /// SESSION_INIT each).
    @Test func aFloodOfPhoneSessionsIsPacedAndQuiet() async throws {
        let world = try await World()
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let lines = world.dir.file("phones.txt")
        try (0..<200).map { n in
            #"{"id": \#(n), "name": "flood-\#(n)", "phone_role": "controlee", "config_id": 1, "phone_address": "\#(String(format: "%02X:%02X", 0x40 + n / 256, n % 256))"}"#
        }.joined(separator: "\n").appending("\n").write(toFile: lines, atomically: true, encoding: .utf8)
        let floodStart = ContinuousClock.now
        let flood = try ChildProcess(executable: "/bin/sh", arguments: [
            "-c", "/usr/bin/mosquitto_pub -h 127.0.0.1 -p \(world.broker.port) -q 1 -t uwb2mqtt/gw/request/phone_session -l < '\(lines)'"],
            stdoutPath: world.dir.file("flood.out"), stderrPath: world.dir.file("flood.err"))
        defer { flood.terminate() }
        let answers = try await world.subscriber.waitForMessages(topic: "uwb2mqtt/gw/response/phone_session", count: 200, timeout: .seconds(60))
        let seconds = Int((ContinuousClock.now - floodStart).components.seconds) + 1
        let refused = answers.map { json($0.payload) }.filter { ($0["error"] as? String)?.hasPrefix("too many phone_session requests") == true }
        let paced = 200 - refused.count
        #expect(paced >= 1 && paced <= 4 + seconds, "\(paced) reached the device in \(seconds) s")
        #expect((refused.first?["error"] as? String)?.contains("try again in") == true, "\(refused.first ?? [:])")
        let initialisations = world.host.commandsSeen.filter { if case .sessionInit = $0 { true } else { false } }.count
        #expect(initialisations <= paced + 1, "\(initialisations) SESSION_INIT for \(paced) paced requests")
        let said = world.agent.logLines.filter { $0.contains("refused a phone_session request") || $0.contains("more like it") }
        #expect(said.count >= 1 && said.count <= 2 * (seconds / 10 + 1), "\(said)")
    }
}
