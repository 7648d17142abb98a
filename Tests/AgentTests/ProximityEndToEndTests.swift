import Foundation
import Testing
import TestSupport

/// The proximity rules end to end: a simulated person walks up to the gateway and away, the
/// real agent runs the example rules (deploy/rules.yaml), and an independent subscriber sees the
/// events of mqtt-api.md.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ProximityEndToEndTests {


    func events(_ subscriber: MQTTTestSubscriber, peer: String = "phone-anna") -> [[String: Any]] {
        subscriber.messages.filter { $0.topic == "uwb2mqtt/gw/peer/\(peer)/event" }.map { json($0.payload) }
    }

    /// The `ts` of the newest `range` message `subscriber` received: the receive time of the newest
    /// packet the agent recorded (it records a notification before it publishes its ranges).
    /// RFC 3339 texts of one width compare as the times they name.
    func newestRangeTime(_ subscriber: MQTTTestSubscriber) -> String {
        subscriber.messages.filter { $0.topic.hasSuffix("/range") }.compactMap { json($0.payload)["ts"] as? String }.max() ?? ""
    }

    /// The agent on the walk-by with `record:`, stopped once `condition` holds of what `subscriber`
    /// (on `topics`, which include the ranges) received and a packet dated at or after it has been
    /// recorded — a replay ends at the recording's last packet; then `replay` of its recording with
    /// `replayArguments`. Hands the subscriber and the replay's output lines to `compare`, inside
    /// the broker's lifetime.
    func recordThenReplay(topics: [String], scenario: String = AgentFixtures.walkBy, until what: String,
                          _ condition: @escaping @Sendable (MQTTTestSubscriber) -> Bool,
                          replayArguments: [String], compare: (MQTTTestSubscriber, [String]) throws -> Void) async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "agent-record")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: topics)
        defer { subscriber.stop() }
        let config = testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(AgentFixtures.exampleRulesPath)\nrecord: \(dir.file("walk.uwbrec"))")
        let agent = try AgentProcess(config: config, scenario: scenario, directory: dir)
        defer { agent.stop() }
        await eventually(what, timeout: 60) { condition(subscriber) }
        let decided = subscriber.messages.compactMap { json($0.payload)["ts"] as? String }.max() ?? ""
        // Strictly later: a ts is rounded to the millisecond, and a packet in the same millisecond
        // may still precede the decision.
        await eventually("a packet recorded after \(what)") { newestRangeTime(subscriber) > decided }
        #expect(agent.process.terminate() == .exited(0))

        let replay = try ChildProcess(executable: AgentProcess.executable,
                                      arguments: ["replay", dir.file("walk.uwbrec"), "--config", dir.file("agent.yaml"), "--fast"] + replayArguments,
                                      stdoutPath: dir.file("replay.out"), stderrPath: dir.file("replay.err"))
        #expect(await replay.waitForExit(timeout: .seconds(60)) == .exited(0))
        try compare(subscriber, try String(contentsOfFile: dir.file("replay.out"), encoding: .utf8).split(separator: "\n").map(String.init))
    }

    @Test func aWalkUpAndAwayGivesTheExpectedEvents() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "agent-walkby", topics: ["uwb2mqtt/gw/#"])
        defer { subscriber.stop(); broker.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(AgentFixtures.exampleRulesPath)"),
                                     scenario: AgentFixtures.walkBy, directory: dir)
        defer { agent.stop() }

        let rules = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules").payload)
        #expect(rules["ok"] as? Bool == true && rules["error"] is NSNull && (rules["sha256"] as? String)?.count == 64)
        // The active rules' distances, for viewers that mark them (deploy/rules.yaml's counter zone).
        let thresholds = rules["thresholds"] as? [[String: Any]] ?? []
        #expect(thresholds.contains { $0["rule"] as? String == "counter" && $0["kind"] as? String == "enter" && $0["distance_m"] as? Double == 1.0 })

        await eventually("signal_lost of phone-anna", timeout: 60) {
            events(subscriber).contains { $0["type"] as? String == "signal_lost" }
        }
        let anna = events(subscriber)
        func ofType(_ type: String) -> [[String: Any]] { anna.filter { $0["type"] as? String == type } }

        // Exactly one zone enter and one exit of the counter.
        #expect(ofType("zone_enter").count == 1 && ofType("zone_exit").count == 1)
        #expect(ofType("zone_enter").first?["rule"] as? String == "counter")
        let enterReason = ofType("zone_enter").first?["reason"] as? [String: Any]
        #expect(enterReason?["threshold_m"] as? Double == 1.0 && enterReason?["dwell_ms"] as? Int == 300 && enterReason?["crossed_at"] is String)

        // Stages far → near → within reach → near → far, then null when the signal is lost.
        let stages = ofType("stage_change").map { $0["to"] as? String ?? "null" }
        #expect(stages == ["locate", "point", "reach", "point", "locate", "null"], "\(stages)")

        // One completed approach, never canceled.
        #expect(ofType("approach_completed").count == 1)
        #expect(ofType("approach_canceled").isEmpty)

        // Signal loss with its cause: the device reports RX timeouts for the tag.
        let lost = try #require(ofType("signal_lost").first)
        let cause = (lost["reason"] as? [String: Any])?["cause"] as? String
        #expect(cause == "measurement_errors")
        #expect((lost["reason"] as? [String: Any])?["last_seen"] is String)

        // Event ids are unique; every event names its peer and carries a ts.
        let ids = anna.compactMap { $0["id"] as? String }
        #expect(Set(ids).count == anna.count && ids.allSatisfy { $0.hasPrefix("gw:") })

        // Never an angle the device did not give: a DWM3001C has none.
        for message in subscriber.messages where message.topic.hasPrefix("uwb2mqtt/gw/peer/") {
            let payload = json(message.payload)
            for key in ["azimuth_deg", "elevation_deg", "facing"] where payload[key] != nil {
                #expect(payload[key] is NSNull, "\(message.topic) \(key)")
            }
            #expect(!message.topic.hasSuffix("/position"), "a position without a direction: \(message.payload)")
        }

        // Retained state says where she is now: lost, no zones, no stage.
        let state = subscriber.messages.last { $0.topic == "uwb2mqtt/gw/peer/phone-anna/state" }.map { json($0.payload) }
        #expect(state?["link"] as? String == "lost")
        #expect((state?["zones"] as? [String])?.isEmpty == true && state?["stage"] is NSNull)
        // Feedback flowed while she was in a stage, and the ranking was published.
        #expect(subscriber.messages.contains { $0.topic == "uwb2mqtt/gw/peer/phone-anna/feedback" })
        #expect(subscriber.messages.contains { $0.topic == "uwb2mqtt/gw/ranking/share-target" })
    }

    /// What the live agent published, minus `id` and `ts`, is what a replay of its recording prints.
    @Test func aReplayOfTheRecordingReproducesTheLiveEvents() async throws {
        try await recordThenReplay(topics: ["uwb2mqtt/gw/peer/+/event", "uwb2mqtt/gw/peer/+/range"], until: "signal_lost of phone-anna", { subscriber in
            events(subscriber).contains { $0["type"] as? String == "signal_lost" }
        }, replayArguments: []) { subscriber, lines in
            let replayed = lines.map { json($0) }

            func comparable(_ events: [[String: Any]]) -> [String] {
                // Phone-anna's events up to and including her signal loss (the agent went on a
                // little longer), without id and ts.
                let anna = events.filter { $0["peer"] as? String == "phone-anna" }
                let end = anna.firstIndex { $0["type"] as? String == "signal_lost" }.map { $0 + 1 } ?? anna.count
                return anna.prefix(end).map { event in
                    var e = event
                    e["id"] = nil
                    e["ts"] = nil
                    return String(decoding: try! JSONSerialization.data(withJSONObject: e, options: [.sortedKeys]), as: UTF8.self)
                }
            }
            let live = comparable(events(subscriber))
            #expect(live.count >= 8)
            #expect(comparable(replayed) == live)
        }
    }

    /// The device goes into ERROR while both peers range: the live agent loses their links
    /// (`session_stopped`), resets the device and ranges again; a replay of its recording reads the
    /// same from what the device sent (`DeviceNews`, as `DeviceSession` reads it) and gives the
    /// same events.
    @Test func aReplayReadsADeviceErrorAsTheLiveAgentDid() async throws {
        let scenario = AgentFixtures.walkBy + "\nfaults: [{at: 5, kind: device_error}]"
        try await recordThenReplay(topics: ["uwb2mqtt/gw/peer/+/event", "uwb2mqtt/gw/peer/+/range"], scenario: scenario,
                                   until: "phone-anna ranging again after the error", { subscriber in
            events(subscriber).contains { $0["type"] as? String == "signal_regained" && $0["peer"] as? String == "phone-anna" }
        }, replayArguments: []) { subscriber, lines in
            func comparable(_ events: [[String: Any]]) -> [String] {
                let anna = events.filter { $0["peer"] as? String == "phone-anna" }
                let end = anna.firstIndex { $0["type"] as? String == "signal_regained" }.map { $0 + 1 } ?? anna.count
                return anna.prefix(end).map { event in
                    var e = event
                    e["id"] = nil
                    e["ts"] = nil
                    if var reason = e["reason"] as? [String: Any] { reason["last_seen"] = nil; e["reason"] = reason }
                    return String(decoding: try! JSONSerialization.data(withJSONObject: e, options: [.sortedKeys]), as: UTF8.self)
                }
            }
            let live = comparable(events(subscriber))
            #expect(live.contains { $0.contains(#""cause":"session_stopped""#) }, "\(live)")
            #expect(comparable(lines.map { json($0) }) == live)
        }
    }

    /// Every payload the live agent published about the peers — range, feedback, state, event,
    /// ranking — up to the last recorded packet is what `replay --topics` of its recording gives,
    /// `id` and `ts` aside: run and replay drive the same core. The live agent stops mid-run, so
    /// per topic what it published is the start of what the replay gives.
    @Test func replayWithAllTopicsReproducesEveryLivePayload() async throws {
        try await recordThenReplay(topics: ["uwb2mqtt/gw/peer/#", "uwb2mqtt/gw/ranking/#"], until: "phone-anna in the counter zone", { subscriber in
            events(subscriber).contains { $0["type"] as? String == "zone_enter" }
        }, replayArguments: ["--topics"]) { subscriber, lines in

            func comparable(_ payload: String) -> String {
                var object = json(payload)
                object["id"] = nil
                object["ts"] = nil
                return String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
            }
            var replayed: [String: [String]] = [:]
            for line in lines {
                guard let space = line.firstIndex(of: " ") else { continue }
                replayed[String(line[..<space]), default: []].append(comparable(String(line[line.index(after: space)...])))
            }
            var live: [String: [String]] = [:]
            // What a timer decided between the last recorded packet and the stop is not in the recording.
            let end = newestRangeTime(subscriber)
            for message in subscriber.messages where (!message.retained || live[message.topic] != nil)
                && json(message.payload)["ts"] as? String ?? "" <= end {
                live[message.topic, default: []].append(comparable(message.payload))
            }
            #expect((live["uwb2mqtt/gw/peer/phone-anna/range"]?.count ?? 0) > 20)
            #expect(live["uwb2mqtt/gw/peer/phone-anna/feedback"] != nil && live["uwb2mqtt/gw/peer/phone-anna/state"] != nil)
            for (topic, published) in live.sorted(by: { $0.key < $1.key }) {
                let expected = Array((replayed[topic] ?? []).prefix(published.count))
                let first = published.indices.first { $0 >= expected.count || published[$0] != expected[$0] } ?? published.count
                #expect(published == expected, """
                    \(topic): live \(published.count), replay \(replayed[topic]?.count ?? 0) messages; the first difference, at \(first):
                    live   \(first < published.count ? published[first] : "-")
                    replay \(first < expected.count ? expected[first] : "-")
                    """)
            }
        }
    }

    @Test func aBrokenRulesFileKeepsTheActiveRulesAndSaysWhere() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "agent-reload")
        let rulesPath = try dir.write("rules.yaml", "version: 1\nzones:\n  - {name: near, enter_within: 2, exit_beyond: 2.5}\n")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/rules", "uwb2mqtt/gw/response/#", "uwb2mqtt/gw/peer/tool-cart/state"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(rulesPath)"), directory: dir)
        defer { agent.stop() }
        let first = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules").payload)
        let activeSHA = try #require(first["sha256"] as? String)

        // A broken edit: reported with line and column, the old rules stay active.
        try "version: 1\nzones:\n  - {name: near, enter_within: 2, exit_beyond: 1}\n".write(toFile: rulesPath, atomically: true, encoding: .utf8)
        let broken = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules", where: { json($0.payload)["ok"] as? Bool == false }).payload)
        let error = broken["error"] as? [String: Any]
        #expect(error?["line"] as? Int == 3 && error?["column"] as? Int != nil)
        #expect((error?["message"] as? String)?.contains("exit_beyond") == true)
        #expect(broken["sha256"] as? String == activeSHA)
        #expect(agent.process.isRunning)

        // A good edit through the reload_rules request: swapped in, a new sha256.
        try "version: 1\nzones:\n  - {name: far, enter_within: 5, exit_beyond: 6}\n".write(toFile: rulesPath, atomically: true, encoding: .utf8)
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/reload_rules", message: #"{"id": "r1"}"#)
        let response = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/reload_rules").payload)
        #expect(response["ok"] as? Bool == true && response["id"] as? String == "r1")
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules", where: { json($0.payload)["ok"] as? Bool == true && json($0.payload)["sha256"] as? String != activeSHA })
        // The cart at 3 m is now in zone "far".
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/tool-cart/state", where: { ((json($0.payload)["zones"] as? [String]) ?? []) == ["far"] })
    }
}
