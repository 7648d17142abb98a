import Foundation
import Gateway
import Testing
import TestSupport
import Vocabulary

/// Direction from the phone, end to end: an Android phone ranges with a gateway whose device has
/// no angle of arrival, and the test, as the phone's app, publishes what the phone measured of
/// the gateway on `phone/<name>/report`. Facing, its cues and a ranking's facing bonus follow the
/// reports; reports nobody may send change nothing; reports that stop leave no stale facing.
@Suite struct PhoneReportEndToEndTests {
    typealias World = PhoneSessionEndToEndTests.World

    /// The example rules with a `max_age` a loaded test machine's delivery stays well within, and
    /// a tag whose base score lies between the phone's with and without the facing bonus.
    /// The example rules with a phone's angle fresh for `maxAge`.
    static func rules(in dir: TemporaryDirectory, maxAge: String = "3s") throws -> String {
        let example = try String(contentsOfFile: exampleRulesPath, encoding: .utf8)
        let text = example.replacingOccurrences(of: "max_age: 500ms", with: "max_age: \(maxAge)")
            .replacingOccurrences(of: "base_scores: {tool-cart: 42}", with: "base_scores: {tool-cart: 15}")
        #expect(text != example)
        let path = dir.file("rules.yaml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func report(token: String, ts: Double = Date().timeIntervalSince1970, azimuth: String, elevation: String = "null") -> String {
        #"{"token": "\#(token)", "ts": "\#(Timestamp.rfc3339(ts))", "distance_m": 1.5, "azimuth_deg": \#(azimuth), "elevation_deg": \#(elevation)}"#
    }

    @Test func facingCuesAndRankingsFollowThePhonesReportsAndNothingElse() async throws {
        let scratch = try TemporaryDirectory(prefix: "phone-report-rules")
        let world = try await World(rules: try Self.rules(in: scratch), metricsInterval: "1s")
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let answer = try await world.ask(#"{"id": "p", "name": "phone-ben", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD"}"#)
        let data = try #require(answer["data"] as? [String: Any], "\(answer)")
        let token = try #require(data["report_token"] as? String)
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit), "\(token)")
        world.host.startPhone(try world.parameters(data, role: .controlee, rate: .automatic))
        _ = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-ben/range",
                                                      where: { json($0.payload)["status"] as? String == "ok" }, timeout: .seconds(20))
        let topic = "uwb2mqtt/gw/phone/phone-ben/report"
        func publish(_ message: String, on topic: String = topic, retain: Bool = false) async throws {
            try await MQTTTestPublisher.publish(broker: world.broker, topic: topic, message: message, retain: retain)
        }
        func directionEvents() -> [[String: Any]] {
            world.events("phone-ben").filter { ["direction_available", "direction_unavailable", "facing_gained", "facing_lost"].contains($0["type"] as? String) }
        }

        // Reports nobody may send, or that say nothing usable: dropped, each cause said.
        let wrongToken = String(token.reversed())
        try await publish(Self.report(token: wrongToken, azimuth: "2"))
        try await MQTTTestPublisher.publish(broker: world.broker, topic: "uwb2mqtt/gw/phone/phone-nobody/report",
                                            message: Self.report(token: token, azimuth: "2"))
        try await publish("not json")
        try await publish(Self.report(token: token, azimuth: "2") + String(repeating: " ", count: 600))
        try await publish(Self.report(token: token, azimuth: "1e3"))
        try await publish(Self.report(token: token, ts: Date().timeIntervalSince1970 - 60, azimuth: "2"))
        try await publish(Self.report(token: token, ts: Date().timeIntervalSince1970 + 3600, azimuth: "2"))
        try await publish(Self.report(token: token, azimuth: "2"), retain: true)
        try await publish("", retain: true)
        // Then the phone points at the gateway.
        try await publish(Self.report(token: token, azimuth: "5", elevation: "2"))
        let gained = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-ben/event",
                                                               where: { json($0.payload)["type"] as? String == "facing_gained" }, timeout: .seconds(10))
        #expect((json(gained.payload)["cue"] as? [String: Any])?["sound"] as? String == "direction-lock", "\(gained.payload)")
        let before = directionEvents()
        #expect(before.map { $0["type"] as? String } == ["direction_available", "facing_gained"], "nothing before the good report: \(before)")
        #expect((before.first?["reason"] as? [String: Any])?["direction_source"] as? String == "phone", "\(before)")
        let log = world.agent.log
        for cause in ["wrong token", "no session", "malformed", "too large", "out of range", "late", "ahead", "retained"] {
            #expect(log.contains("dropped a phone report on \"phone-") && log.contains(": \(cause) ("), "\(cause): \(log)")
        }
        #expect(!log.contains(token) && !log.contains(wrongToken), "tokens are never logged")
        let state = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-ben/state",
                                                              where: { json($0.payload)["direction_source"] as? String == "phone" }, timeout: .seconds(5))
        #expect(json(state.payload)["azimuth_deg"] as? Double == 5 && json(state.payload)["elevation_deg"] as? Double == 2)
        #expect(json(state.payload)["facing"] as? Bool == true)
        // The facing bonus puts the phone first.
        let first = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/ranking/share-target", where: {
            ((json($0.payload)["peers"] as? [[String: Any]])?.first?["peer"] as? String) == "phone-ben"
        }, timeout: .seconds(5))
        #expect(((json(first.payload)["peers"] as? [[String: Any]])?.first?["facing"] as? Bool) == true)
        _ = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-ben/feedback",
                                                      where: { json($0.payload)["direction_source"] as? String == "phone" }, timeout: .seconds(5))

        // Pointing away: facing lost, the tag first again.
        try await publish(Self.report(token: token, azimuth: "60"))
        let lost = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-ben/event",
                                                             where: { json($0.payload)["type"] as? String == "facing_lost" }, timeout: .seconds(10))
        #expect(json(lost.payload)["to"] as? Bool == false && (json(lost.payload)["reason"] as? [String: Any])?["azimuth_deg"] as? Double == 60)
        _ = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/ranking/share-target", where: {
            ((json($0.payload)["peers"] as? [[String: Any]])?.first?["peer"] as? String) == "tool-cart"
        }, timeout: .seconds(5))

        // Pointing at it again, then the reports stop: after max_age the direction is
        // unavailable and facing cannot be judged — not left at its last value.
        try await publish(Self.report(token: token, azimuth: "-4"))
        let stale = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-ben/event",
                                                              where: { json($0.payload)["type"] as? String == "direction_unavailable" }, timeout: .seconds(15))
        #expect(json(stale.payload)["reason"] as? [String: String] == ["cause": "stale", "direction_source": "phone"], "\(stale.payload)")
        await eventually("facing null once the direction is stale") {
            directionEvents().last.map { $0["type"] as? String == "facing_lost" && $0["to"] is NSNull } ?? false
        }
        #expect(directionEvents().map { $0["type"] as? String } == [
            "direction_available", "facing_gained", "facing_lost", "facing_gained", "direction_unavailable", "facing_lost",
        ])
        await eventually("the latest state without a direction") {
            world.subscriber.messages.last { $0.topic == "uwb2mqtt/gw/peer/phone-ben/state" }
                .map { json($0.payload)["direction"] as? String == "unavailable" && json($0.payload)["direction_source"] is NSNull } ?? false
        }
        let metrics = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/metrics", where: {
            json($0.payload)["phone_reports"] as? Int == 3
        }, timeout: .seconds(10))
        #expect(json(metrics.payload)["phone_reports_dropped"] as? Int == 8, "\(metrics.payload)")

        // A new session of the same name has a new token; the old one counts for nothing.
        _ = try await world.ask(#"{"id": 2, "name": "phone-ben"}"#, name: "phone_session_stop")
        let again = try await world.ask(#"{"id": "q", "name": "phone-ben", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD"}"#)
        let newToken = try #require((again["data"] as? [String: Any])?["report_token"] as? String, "\(again)")
        #expect(newToken != token)
    }

    /// A recording keeps the phone's session and the reports that counted: replayed, the phone's
    /// events are the live agent's, direction and facing included.
    @Test func aReplayOfARecordingGivesThePhonesEventsAsLive() async throws {
        let scratch = try TemporaryDirectory(prefix: "phone-report-replay")
        let recording = scratch.file("phone.uwbrec")
        // Each report's angle stays fresh for the whole test: on a loaded machine the next report
        // (a mosquitto_pub started after the last facing event) can come more than 3 s later, and
        // an angle gone stale in between ends facing before the report that was to end it.
        let world = try await World(rules: try Self.rules(in: scratch, maxAge: "60s"), record: recording)
        defer { world.stop() }
        try await world.waitForTheTagToRange()
        let answer = try await world.ask(#"{"id": "p", "name": "phone-ben", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD"}"#)
        let data = try #require(answer["data"] as? [String: Any], "\(answer)")
        let token = try #require(data["report_token"] as? String)
        world.host.startPhone(try world.parameters(data, role: .controlee, rate: .automatic))
        _ = try await world.subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-ben/range",
                                                      where: { json($0.payload)["status"] as? String == "ok" }, timeout: .seconds(20))
        let topic = "uwb2mqtt/gw/phone/phone-ben/report"
        for azimuth in ["5", "60", "-3"] {
            let count = world.events("phone-ben").filter { ($0["type"] as? String)?.hasPrefix("facing") == true }.count
            try await MQTTTestPublisher.publish(broker: world.broker, topic: topic, message: Self.report(token: token, azimuth: azimuth))
            await eventually("the facing event of azimuth \(azimuth)") {
                world.events("phone-ben").filter { ($0["type"] as? String)?.hasPrefix("facing") == true }.count > count
            }
        }
        _ = try await world.ask(#"{"id": 2, "name": "phone-ben"}"#, name: "phone_session_stop")
        await eventually("the phone's signal_lost") { world.events("phone-ben").contains { $0["type"] as? String == "signal_lost" } }
        // A packet after it, so that the recording reaches past the last live decision.
        let after = world.phoneRanges("tool-cart").count
        _ = try await world.subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: after + 2, timeout: .seconds(10))
        #expect(world.agent.process.terminate() == .exited(0))

        let replay = try ChildProcess(executable: AgentProcess.executable,
                                      arguments: ["replay", recording, "--config", world.dir.file("agent.yaml"), "--fast"],
                                      stdoutPath: scratch.file("replay.out"), stderrPath: scratch.file("replay.err"))
        #expect(await replay.waitForExit(timeout: .seconds(60)) == .exited(0))
        // As the other replay tests: a decision a live timer made (a dwell) is dated when the timer
        // fired, a replayed one at its deadline.
        func comparable(_ event: [String: Any]) -> String {
            var event = event
            event["id"] = nil
            event["ts"] = nil
            return String(decoding: try! JSONSerialization.data(withJSONObject: event, options: [.sortedKeys]), as: UTF8.self)
        }
        let replayed = try String(contentsOfFile: scratch.file("replay.out"), encoding: .utf8).split(separator: "\n")
            .map { json(String($0)) }.filter { $0["peer"] as? String == "phone-ben" }.map(comparable)
        let live = world.events("phone-ben").map(comparable)
        #expect(live.contains { $0.contains("\"direction_source\":\"phone\"") } && live.count >= 6, "\(live)")
        #expect(replayed == live, """
            replay \(replayed.count), live \(live.count) events; replay's stderr: \((try? String(contentsOfFile: scratch.file("replay.err"), encoding: .utf8)) ?? "")
            the agent's log: \(world.agent.logLines.filter { $0.contains("phone") })
            replay's first lines: \(((try? String(contentsOfFile: scratch.file("replay.out"), encoding: .utf8)) ?? "").prefix(1500))
            """)
    }

    /// Under `run --simulate`, a scenario Android phone with an app asks for its session over the
    /// broker, ranges with what the gateway answered, and reports from its pointing path: the
    /// gateway, whose device has no AoA, gets its direction from the phone.
    @Test func aSimulatedAndroidAppAsksThroughTheBrokerAndReports() async throws {
        let broker = try await MosquittoBroker.start()
        let dir = try TemporaryDirectory(prefix: "android-app")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/demo/#"])
        let agent = try AgentProcess(config: """
            gateway: {id: demo}
            device:
              peers: [{address: 0x0002, name: tool-cart}]
            mqtt: {url: \(broker.url), spool_dir: \(dir.file("spool"))}
            rules: \(exampleRulesPath)
            """, scenario: """
            name: android-app
            duration: 60
            device: {aoa: false}
            peers:
              - {address: 0x0002, name: tool-cart, path: [{t: 0, distance: 3}]}
              - address: 0xCDAB
                path: [{t: 0, distance: 2}]
                phone:
                  role: controlee
                  app:
                    name: phone-ben
                    start_at: 1
                    pointing: [{t: 0, azimuth: 80}, {t: 3, azimuth: 80}, {t: 4, azimuth: 5, elevation: -2}]
            """, directory: dir)
        defer {
            agent.stop()
            subscriber.stop()
            broker.stop()
        }
        let answer = try await subscriber.waitForMessage(topic: "uwb2mqtt/demo/response/phone_session", timeout: .seconds(30))
        #expect(json(answer.payload)["ok"] as? Bool == true, "\(answer.payload)")
        _ = try await subscriber.waitForMessage(topic: "uwb2mqtt/demo/peer/phone-ben/range",
                                                where: { json($0.payload)["status"] as? String == "ok" }, timeout: .seconds(30))
        let available = try await subscriber.waitForMessage(topic: "uwb2mqtt/demo/peer/phone-ben/event", where: {
            json($0.payload)["type"] as? String == "direction_available"
        }, timeout: .seconds(30))
        #expect((json(available.payload)["reason"] as? [String: Any])?["direction_source"] as? String == "phone", "\(available.payload)")
        _ = try await subscriber.waitForMessage(topic: "uwb2mqtt/demo/peer/phone-ben/event", where: {
            json($0.payload)["type"] as? String == "facing_gained"
        }, timeout: .seconds(30))
        #expect(agent.logLines.contains { $0.contains("Android app phone-ben: ranging") }, "\(agent.logLines.suffix(20))")
        #expect(!agent.log.contains("dropped a phone report"), "\(agent.logLines.filter { $0.contains("phone report") })")
    }
}
