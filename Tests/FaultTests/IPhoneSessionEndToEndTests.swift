import SimulatorHosting
import Foundation
import Gateway
import Simulator
import Synchronization
import Testing
import TestSupport
import UCI
import Vocabulary

/// iPhones as peers, end to end: the agent and a real broker, the simulator behind a real
/// pseudo-terminal in this process with an iPhone (and an Android phone) among its peers, and the
/// test playing the iPhone's app: `phone_session` with `"platform": "ios"`, the accessory
/// configuration data handed to the simulated iOS (`IPhoneNearbySession`, as
/// `NISession.run(NINearbyAccessoryConfiguration(data:))`), and iOS's shareable configuration data
/// back in `phone_session_start`. The simulated iPhone ranges only when the gateway's SESSION_INIT
/// and SESSION_SET_APP_CONFIG match what the iPhone puts on the air.
@Suite struct IPhoneSessionEndToEndTests {
    static let iPhone = UWBAddress(0x70, 0x75)
    static let android = UWBAddress(0xAB, 0xCD)

    /// A tag standing at 3 m; the iPhone walks from 4 m to half a metre in six seconds and stays;
    /// an Android phone stands at 2 m.
    static let scenario = Scenario(
        name: "iphone", seed: 5, device: ScenarioDevice(hasAoA: false, rangingInterval: 0.1), noise: .none,
        peers: [PeerTrack(address: 2, name: "tool-cart", path: [.init(t: 0, distance: 3)]),
                PeerTrack(address: iPhone.shortAddress, name: "iphone",
                          path: [.init(t: 0, distance: 4), .init(t: 6, distance: 0.5), .init(t: 600, distance: 0.5)],
                          iPhone: ScenarioIPhone()),
                PeerTrack(address: android.shortAddress, name: "android", path: [.init(t: 0, distance: 2)],
                          phone: PhoneSessionEndToEndTests.startedByItsApp(android))])

    final class World: @unchecked Sendable {
        let broker: MosquittoBroker
        let dir: TemporaryDirectory
        let host: SimulatorHost
        let subscriber: MQTTTestSubscriber
        let agent: AgentProcess
        let simulatorLog = PhoneSessionEndToEndTests.SimulatorLog()
        /// iOS's random choices, seeded so that a failure repeats.
        var random = SplitMix64(seed: 11)

        init(noRangingTimeout: String = "10s", accessoryDataTimeout: String = "30s") async throws {
            broker = try await MosquittoBroker.start()
            dir = try TemporaryDirectory(prefix: "iphone-session")
            let link = dir.file("dwm3001c")
            let log = simulatorLog
            host = try SimulatorHost(scenario: IPhoneSessionEndToEndTests.scenario, linkPath: link) { line in log.lines.withLock { $0.append(line) } }
            subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/#"])
            let config = """
                gateway: {id: gw}
                device:
                  port: \(link)
                  ranging_interval: 100ms
                  session_key_info: "5a17c3e09b2d4f61"
                  peers: [{address: 0x0002, name: tool-cart}]
                phones: {no_ranging_timeout: \(noRangingTimeout), apple: {accessory_data_timeout: \(accessoryDataTimeout)}}
                mqtt: {url: \(broker.url), spool_dir: \(dir.file("spool"))}
                rules: \(exampleRulesPath)
                """
            agent = try AgentProcess(config: config, scenario: nil, directory: dir)
        }

        func stop() {
            agent.stop()
            subscriber.stop()
            host.stop()
            broker.stop()
        }

        func waitForTheTagToRange() async throws {
            _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 3, timeout: .seconds(20))
        }

        func ask(_ request: String, name: String) async throws -> [String: Any] {
            let before = subscriber.messages.count
            try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/\(name)", message: request)
            let answer = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/\(name)", where: { message in
                subscriber.messages.firstIndex(of: message).map { $0 >= before } ?? false
            }, timeout: .seconds(20))
            return json(answer.payload)
        }

        /// Step 1: the accessory configuration data, decoded.
        func accessory(_ name: String) async throws -> [UInt8] {
            let answer = try await ask(#"{"id": "acd", "name": "\#(name)", "platform": "ios"}"#, name: "phone_session")
            #expect(answer["ok"] as? Bool == true, "\(answer)")
            let data = try #require(answer["data"] as? [String: Any])
            let text = try #require(data["accessory_configuration_data"] as? String)
            return try #require(Base64.decode(text))
        }

        /// Steps 2–3: iOS runs its session (the simulated iPhone listens from now on) and the app
        /// sends what iOS answered, possibly `altered` on the way (a parameter that then differs).
        func start(_ name: String, accessory: [UInt8], altered: (inout ShareableConfigurationData) -> Void = { _ in })
            async throws -> (session: IPhoneNearbySession, answer: [String: Any]) {
            let session = try IPhoneNearbySession(accessoryConfigurationData: accessory, address: IPhoneSessionEndToEndTests.iPhone, using: &random)
            host.startIPhone(session)
            var sent = session.shareable
            altered(&sent)
            let answer = try await ask(#"{"id": "start", "name": "\#(name)", "shareable_configuration_data": "\#(Base64.encode(sent.bytes))"}"#,
                                       name: "phone_session_start")
            return (session, answer)
        }

        func ranges(_ peer: String) -> [[String: Any]] {
            subscriber.messages.filter { $0.topic == "uwb2mqtt/gw/peer/\(peer)/range" }.map { json($0.payload) }
        }

        func events(_ peer: String) -> [[String: Any]] {
            subscriber.messages.filter { $0.topic == "uwb2mqtt/gw/peer/\(peer)/event" }.map { json($0.payload) }
        }

        var sessionInits: Int { host.commandsSeen.filter { if case .sessionInit = $0 { true } else { false } }.count }
    }

    @Test func anIPhoneRangesAfterTwoRequestsBesideTheTagsAndAnAndroidPhone() async throws {
        let world = try await World()
        defer { world.stop() }
        try await world.waitForTheTagToRange()

        // The Android phone asks first, and ranges.
        let androidAnswer = try await world.ask(#"{"id": "a", "name": "phone-ben", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD"}"#,
                                                name: "phone_session")
        let androidData = try #require(androidAnswer["data"] as? [String: Any], "\(androidAnswer)")
        let keyText = try #require(androidData["session_key_info"] as? String)
        let key = try #require(SessionKeyInfo(hex: keyText))
        let androidSession = try #require(androidData["session_id"] as? Int)
        world.host.startPhone(PhoneRangingParameters(role: .controlee, address: Self.android, gatewayAddress: UWBAddress(0, 0),
                                                     sessionID: UInt32(androidSession), sessionKeyInfo: key))

        let accessory = try await world.accessory("iphone-eve")
        let (session, answer) = try await world.start("iphone-eve", accessory: accessory)
        #expect(answer["ok"] as? Bool == true && answer["id"] as? String == "start", "\(answer)")
        let data = try #require(answer["data"] as? [String: Any])
        #expect(data["session_id"] as? Int == Int(session.shareable.sessionID) && data["phone_address"] as? String == "70:75")
        #expect(data["ranging_interval_ms"] as? Int == 198 && data["version"] as? String == "1.1")

        // The iPhone is a peer like any other: exact distances (no noise), its own session, events.
        let range = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/iphone-eve/range",
                                                              where: { json($0.payload)["status"] as? String == "ok" }, timeout: .seconds(20))
        #expect(json(range.payload)["mac"] as? String == "0x7570" && json(range.payload)["session"] as? Int == Int(session.shareable.sessionID))
        let distance = try #require(json(range.payload)["distance_m"] as? Double)
        #expect(distance >= 0.5 && distance <= 4.0)
        #expect(json(range.payload)["azimuth_deg"] is NSNull, "the DWM3001C measures no angle")
        let enter = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/iphone-eve/event",
                                                              where: { json($0.payload)["type"] as? String == "zone_enter" }, timeout: .seconds(30))
        #expect(json(enter.payload)["rule"] as? String == "counter")
        // After the walk it stands at half a metre: the gateway's distance is the scene's.
        try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/iphone-eve/range", where: {
            (json($0.payload)["distance_m"] as? Double).map { abs($0 - 0.5) < 0.011 } ?? false
        }, timeout: .seconds(20))
        // The Android phone and the tags ranged beside it, each in its own session.
        try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-ben/range",
                                                  where: { json($0.payload)["status"] as? String == "ok" }, timeout: .seconds(20))
        #expect(world.ranges("tool-cart").allSatisfy { $0["session"] as? Int == 42 })
        #expect(!world.host.commandsSeen.contains(.sessionStop(sessionHandle: 1)), "the tags' session was never stopped")
        #expect(!world.simulatorLog.lines.withLock { $0 }.contains { $0.contains("iPhone") && $0.contains("no ranging") })

        // Stopped on request: the link is lost, the device's session wound down.
        let stop = try await world.ask(#"{"id": "s", "name": "iphone-eve"}"#, name: "phone_session_stop")
        #expect(stop["ok"] as? Bool == true, "\(stop)")
        let lost = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/iphone-eve/event",
                                                             where: { json($0.payload)["type"] as? String == "signal_lost" }, timeout: .seconds(10))
        #expect((json(lost.payload)["reason"] as? [String: Any])?["cause"] as? String == "session_stopped")
        // Its accessory data went with it: the app starts again at step 1.
        let again = try await world.start("iphone-eve", accessory: accessory).answer
        #expect((again["error"] as? String)?.contains("ask phone_session again") == true, "\(again)")
    }

    /// A new NISession run: a new session id and IV; the second `phone_session_start` replaces the
    /// running session under the same name, with no `signal_lost` in between.
    @Test func aNewNISessionRunReplacesTheSessionWithoutAGap() async throws {
        let world = try await World()
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let accessory = try await world.accessory("iphone-eve")
        let first = try await world.start("iphone-eve", accessory: accessory)
        #expect(first.answer["ok"] as? Bool == true, "\(first.answer)")
        try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/iphone-eve/range",
                                                  where: { json($0.payload)["status"] as? String == "ok" }, timeout: .seconds(20))
        let second = try await world.start("iphone-eve", accessory: accessory)
        #expect(second.answer["ok"] as? Bool == true, "\(second.answer)")
        #expect(second.session.shareable.sessionID != first.session.shareable.sessionID)
        let newSession = Int(second.session.shareable.sessionID)
        try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/iphone-eve/range", where: {
            json($0.payload)["status"] as? String == "ok" && json($0.payload)["session"] as? Int == newSession
        }, timeout: .seconds(20))
        #expect(world.events("iphone-eve").allSatisfy { $0["type"] as? String != "signal_lost" }, "\(world.events("iphone-eve"))")
        let states = world.subscriber.messages.filter { $0.topic == "uwb2mqtt/gw/peer/iphone-eve/state" }.map { json($0.payload)["link"] as? String }
        #expect(!states.contains("lost"), "\(states)")
        #expect(world.host.commandsSeen.contains(.sessionDeinit(sessionHandle: 2)), "the first run's session was wound down")
    }

    /// Each parameter the gateway gets wrong keeps the iPhone from ranging, and the simulator's
    /// log names it; the gateway lets the iPhone go when it would give up.
    @Test(arguments: ["PREAMBLE_CODE_INDEX", "STATIC_STS_IV", "RANGING_DURATION"])
    func aParameterThatDiffersGivesNoRangingAndADiagnosisNamingIt(parameter: String) async throws {
        let world = try await World(noRangingTimeout: "2s")
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let accessory = try await world.accessory("iphone-dan")
        let (_, answer) = try await world.start("iphone-dan", accessory: accessory) { sent in
            switch parameter {
            case "PREAMBLE_CODE_INDEX": sent.preambleCodeIndex = sent.preambleCodeIndex == 12 ? 11 : sent.preambleCodeIndex + 1
            case "STATIC_STS_IV": sent.staticSTSIV[0] ^= 0xFF
            default: sent.rangingIntervalMilliseconds += 2
            }
        }
        #expect(answer["ok"] as? Bool == true, "the gateway's device ranges; the iPhone does not hear it: \(answer)")
        await eventually("the gateway letting the iPhone go", timeout: 20) {
            world.agent.logLines.contains { $0.contains("phone iphone-dan: no successful round within 2 s of the start") }
        }
        #expect(world.ranges("iphone-dan").allSatisfy { $0["status"] as? String != "ok" }, "no successful range")
        let diagnosis = world.simulatorLog.lines.withLock { $0 }.filter { $0.contains("no ranging") }
        #expect(diagnosis.contains { $0.contains(parameter + ":") }, "\(diagnosis)")
    }

    /// Every bad input gets `ok: false` naming what is wrong, and nothing else changes: no session
    /// reaches the device, the tags range on.
    @Test func badRequestsGetAClearErrorAndChangeNothing() async throws {
        let world = try await World(accessoryDataTimeout: "8s")
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let accessory = try await world.accessory("iphone-eve")
        // An Android phone asking for a name an iPhone holds, at once: the accessory data waits only
        // 8 s, and on CI's loaded machine (the whole suite at once on two cores) the requests below
        // took longer than 5 s, and even making the iPhone's answer did.
        let android = try await world.ask(#"{"id": 8, "name": "iphone-eve", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD"}"#,
                                          name: "phone_session")
        #expect((android["error"] as? String)?.contains("is prepared for an iPhone") == true, "\(android)")
        let good = try IPhoneNearbySession(accessoryConfigurationData: accessory, address: Self.iPhone, using: &world.random).shareable.bytes
        var unknownVersion = good
        unknownVersion[0] = 3
        let cases: [(String, String, String)] = [
            (#"{"id": 1, "name": "iphone-eve", "shareable_configuration_data": "AQAB*ABl"}"#, "phone_session_start", "is not base64"),
            (#"{"id": 2, "name": "iphone-eve", "shareable_configuration_data": "\#(Base64.encode(Array(good.prefix(29))))"}"#, "phone_session_start",
             "shareable_configuration_data is 29 bytes"),
            (#"{"id": 3, "name": "iphone-eve", "shareable_configuration_data": "\#(Base64.encode(unknownVersion))"}"#, "phone_session_start",
             "has version 3.1"),
            (#"{"id": 4, "name": "iphone-fay", "shareable_configuration_data": "\#(Base64.encode(good))"}"#, "phone_session_start",
             "no accessory configuration is waiting for \"iphone-fay\""),
            (#"{"id": 5, "name": "tool-cart", "platform": "ios"}"#, "phone_session", "is the configured peer tool-cart's"),
            (#"{"id": 6, "name": "iphone-gus", "platform": "ios", "phone_role": "controlee"}"#, "phone_session", "unknown key \"phone_role\""),
            (#"{"id": 7, "name": "iphone-gus", "platform": "ios", "update_rate": "often"}"#, "phone_session", "update_rate must be"),
        ]
        for (request, name, message) in cases {
            let answer = try await world.ask(request, name: name)
            #expect(answer["ok"] as? Bool == false)
            #expect((answer["error"] as? String)?.contains(message) == true, "\(answer)")
        }
        // The accessory data expires unused: a late start is refused, saying so.
        await eventually("the accessory data dropped", timeout: 20) {
            world.agent.logLines.contains { $0.contains("phone iphone-eve: its accessory configuration was not used within 8 s") }
        }
        let late = try await world.ask(#"{"id": 9, "name": "iphone-eve", "shareable_configuration_data": "\#(Base64.encode(good))"}"#,
                                       name: "phone_session_start")
        #expect((late["error"] as? String)?.contains("it expired after 8 s, or was never asked for: ask phone_session again") == true, "\(late)")
        #expect(world.sessionInits == 1, "only the tags' session reached the device")
        let cart = world.ranges("tool-cart").count
        _ = try await world.subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: cart + 3, timeout: .seconds(10))
        #expect(!world.host.commandsSeen.contains(.sessionStop(sessionHandle: 1)))
    }

    /// `make demo`'s scenario: under `run --simulate with-iphone` the simulated iPhone's app asks
    /// the gateway itself, through the broker, and the iPhone ranges as a named peer; its reports
    /// give it a direction on a device without AoA, and facing is gained walking in.
    @Test func theDemosIPhoneAppAsksThroughTheBrokerByItself() async throws {
        let broker = try await MosquittoBroker.start()
        let dir = try TemporaryDirectory(prefix: "iphone-demo")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/demo/#"])
        let agent = try AgentProcess(config: """
            gateway: {id: demo}
            device:
              peers: [{address: 0x0001, name: phone-anna}, {address: 0x0002, name: tool-cart}]
            mqtt: {url: \(broker.url), spool_dir: \(dir.file("spool"))}
            rules: \(exampleRulesPath)
            """, scenario: "with-iphone", directory: dir)
        defer {
            agent.stop()
            subscriber.stop()
            broker.stop()
        }
        let offer = try await subscriber.waitForMessage(topic: "uwb2mqtt/demo/response/phone_session", timeout: .seconds(30))
        #expect(json(offer.payload)["ok"] as? Bool == true, "\(offer.payload)")
        let started = try await subscriber.waitForMessage(topic: "uwb2mqtt/demo/response/phone_session_start", timeout: .seconds(30))
        #expect(json(started.payload)["ok"] as? Bool == true, "\(started.payload)")
        let range = try await subscriber.waitForMessage(topic: "uwb2mqtt/demo/peer/iphone-eve/range",
                                                        where: { json($0.payload)["status"] as? String == "ok" }, timeout: .seconds(30))
        #expect(json(range.payload)["mac"] as? String == "0x7570")
        #expect(agent.logLines.contains { $0.contains("iPhone app iphone-eve: ranging") }, "\(agent.logLines.suffix(20))")

        let available: MQTTTestSubscriber.Message
        do {
            available = try await subscriber.waitForMessage(topic: "uwb2mqtt/demo/peer/iphone-eve/event", where: {
                json($0.payload)["type"] as? String == "direction_available"
            }, timeout: .seconds(30))
        } catch {
            Issue.record("no direction_available; the agent's log ends: \(agent.logLines.suffix(30))")
            throw error
        }
        #expect((json(available.payload)["reason"] as? [String: Any])?["direction_source"] as? String == "phone", "\(available.payload)")
        _ = try await subscriber.waitForMessage(topic: "uwb2mqtt/demo/peer/iphone-eve/event", where: {
            json($0.payload)["type"] as? String == "facing_gained"
        }, timeout: .seconds(30))
        #expect(!agent.log.contains("dropped a phone report"), "\(agent.logLines.filter { $0.contains("phone report") })")
        // Later in the minute the phone turns aside at the counter (facing lost there) and is
        // lowered out of view on the way out: the scenario says so, the end-to-end tests of
        // reports show what the agent makes of it.
        let app = try #require(Scenario.withIPhone.peers.first { $0.name == "iphone-eve" }?.iPhone?.app)
        #expect(app.angle(at: 20).map { abs($0.azimuth) <= 15 } == true, "facing in the reach band (15°)")
        #expect(app.angle(at: 26).map { abs($0.azimuth) > 15 } == true, "turned aside at the counter")
        #expect(app.angle(at: 30).map { abs($0.azimuth) <= 15 } == true && app.angle(at: 40) == nil)
    }
}
