import Foundation
import Proximity
import Testing
import TestSupport
import RulesReading

/// A rules file is the agent's to read, not a network peer's, but what the agent says about it
/// goes to every subscriber (issue #35): a file that is no rules file is never published, too
/// large a file is refused, and what is published about rules stays within a broker's limits.
@Suite(.serialized, .timeLimit(.minutes(3))) struct HostileRulesFileTests {
    /// The rules path pointed at a private key, then the file replaced by a password: the retained
    /// `rules`, the `reload_rules` answer and the log name the place and what was expected, and
    /// nothing of either file.
    @Test func aSecretGivenAsTheRulesFileIsNeverPublishedOrLogged() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "rules-secret")
        let rulesPath = try dir.write("rules.yaml", SecretFiles.openSSHPrivateKey)
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/rules", "uwb2mqtt/gw/response/#"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(rulesPath)"), directory: dir)
        defer { agent.stop() }

        let first = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules").payload)
        let error = first["error"] as? [String: Any]
        #expect(first["ok"] as? Bool == false)
        #expect(error?["line"] as? Int == 1 && error?["column"] as? Int == 1, "\(first)")
        #expect((error?["message"] as? String)?.hasPrefix("expected a mapping (key: value pairs) at the top of the file") == true, "\(first)")

        try SecretFiles.password.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/reload_rules", message: #"{"id": "r1"}"#)
        let answer = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/reload_rules").payload)
        #expect(answer["ok"] as? Bool == false)
        #expect((answer["error"] as? String)?.hasPrefix("\(rulesPath):1:1: expected a mapping") == true, "\(answer)")

        // A subscriber that comes later gets the retained outcome of the last load.
        let later = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/rules"])
        defer { later.stop() }
        let retained = try await later.waitForMessage(topic: "uwb2mqtt/gw/rules")
        #expect(retained.retained && json(retained.payload)["ok"] as? Bool == false)

        await eventually("the failed loads in the log") { agent.logLines.filter { $0.contains("rules: \(rulesPath):1:1:") }.count >= 2 }
        let published = (subscriber.messages + later.messages).map(\.payload).joined(separator: "\n")
        for secret in [SecretFiles.openSSHPrivateKey, SecretFiles.password] {
            #expect(SecretFiles.leaks(of: secret, in: published).isEmpty, "\(published)")
            #expect(SecretFiles.leaks(of: secret, in: agent.log).isEmpty, "\(agent.log)")
        }
    }

    /// Every bound at once, names and patterns of 64 characters (the last pattern `*`, so that
    /// the rules apply to the peers): listed whole, its distances and patterns would make a
    /// `rules` payload of about a megabyte.
    static let rulesAtEveryBound = LargeRulesFile.text(
        zones: RulesBounds.zones, bands: RulesBounds.stageBands, approaches: RulesBounds.approaches, rankings: RulesBounds.rankings,
        peers: (1..<RulesBounds.peersPerRule).map { LargeRulesFile.name("tag", $0, length: 64) } + ["*"],
        baseScores: RulesBounds.baseScoresPerRanking, nameLength: 64)

    /// The shipped broker config's `max_packet_size 65536` and a rules file at every bound: the
    /// agent stays connected (no `offline` will, one connection) and ranges flow. A `rules`
    /// payload over the limit would have the broker drop the agent at every reconnect, for good.
    @Test func rulesAtEveryBoundKeepTheAgentConnectedThroughA64KiBPacketLimit() async throws {
        let broker = try await MosquittoBroker.start(MosquittoBroker.Options(extraConfig: ["max_packet_size 65536"]))
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "rules-bounds")
        let rulesPath = try dir.write("rules.yaml", Self.rulesAtEveryBound)
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/status", "uwb2mqtt/gw/rules",
                                                                                     "uwb2mqtt/gw/peer/tool-cart/range"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(rulesPath)"), directory: dir)
        defer { agent.stop() }

        let rules = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules", timeout: .seconds(20))
        #expect(json(rules.payload)["ok"] as? Bool == true && (json(rules.payload)["thresholds_omitted"] as? Int ?? 0) > 0)
        #expect(rules.payload.utf8.count < 32 << 10, "\(rules.payload.utf8.count) bytes")
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 30, timeout: .seconds(20))
        let states = subscriber.messages.filter { $0.topic.hasSuffix("/status") }.compactMap { json($0.payload)["state"] as? String }
        #expect(states == ["online"], "\(states)")
        #expect(agent.logLines.filter { $0.contains("connected to the broker") }.count == 1, "\(agent.log)")
        #expect(!agent.log.contains("broker connection:"), "\(agent.log)")
    }

    /// On MQTT 3.1.1 a broker whose limit is below the `rules` payload drops the agent at every
    /// reconnect: the log says which packet, and does not blame another client with the same
    /// client id.
    @Test func aPacketOverTheBrokersLimitIsNamedInTheLog() async throws {
        let broker = try await MosquittoBroker.start(MosquittoBroker.Options(extraConfig: ["max_packet_size 8192"]))
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "rules-packet-limit")
        let rulesPath = try dir.write("rules.yaml", Self.rulesAtEveryBound)
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(rulesPath)",
                                                        mqttExtra: "  protocol: 3.1.1"), directory: dir)
        defer { agent.stop() }
        // Four connections, each closed by the broker: the client id warning would have come at the third.
        await eventually("four connections", timeout: 40) { agent.logLines.filter { $0.contains("connected to the broker") }.count >= 4 }
        let named = agent.logLines.filter { $0.contains("after the agent sent a") && $0.contains("-byte packet on uwb2mqtt/gw/rules") }
        #expect(named.count == 1, "\(agent.log)")
        #expect(!agent.log.contains("client id"), "\(agent.log)")
    }

    /// On MQTT 5 the broker's CONNACK gives its maximum packet size, and libmosquitto refuses a
    /// larger packet before sending it: the agent stays connected, and the log names the message
    /// it could not send.
    @Test func onMQTT5APacketOverTheBrokersLimitIsRefusedBeforeItIsSent() async throws {
        let broker = try await MosquittoBroker.start(MosquittoBroker.Options(extraConfig: ["max_packet_size 8192"]))
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "rules-packet-limit-5")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/peer/tool-cart/range"])
        defer { subscriber.stop() }
        let rulesPath = try dir.write("rules.yaml", Self.rulesAtEveryBound)
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(rulesPath)"), directory: dir)
        defer { agent.stop() }
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 30, timeout: .seconds(20))
        #expect(agent.logLines.contains { $0.contains("dropped a message for uwb2mqtt/gw/rules") && $0.contains("too large") }, "\(agent.log)")
        #expect(agent.logLines.filter { $0.contains("connected to the broker") }.count == 1, "\(agent.log)")
        #expect(!agent.log.contains("broker connection:"), "\(agent.log)")
    }

    /// 10,000 zones (under the 1 MiB file limit) would take the agent past its unit's
    /// memory limit: a reload refuses the file at its 65th zone and keeps the active rules.
    @Test func tenThousandZonesAreRefusedAndTheActiveRulesStay() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "rules-huge")
        let rulesPath = try dir.write("rules.yaml", "version: 1\nzones:\n  - {name: near, enter_within: 4, exit_beyond: 4.5}\n")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/rules", "uwb2mqtt/gw/response/#",
                                                                                     "uwb2mqtt/gw/peer/tool-cart/state"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(rulesPath)"), directory: dir)
        defer { agent.stop() }
        let active = try #require(json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules").payload)["sha256"] as? String)
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/tool-cart/state", where: { (json($0.payload)["zones"] as? [String]) == ["near"] })

        let huge = LargeRulesFile.text(zones: 10_000, peers: ["*"])
        try huge.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/reload_rules", message: #"{"id": "big"}"#)
        let answer = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/reload_rules").payload)
        #expect(answer["ok"] as? Bool == false)
        #expect(answer["error"] as? String == "\(rulesPath):67:5: at most 64 zones are allowed, found 10000 (this is the 65th)", "\(answer)")
        let refused = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules", where: { json($0.payload)["ok"] as? Bool == false }).payload)
        let error = refused["error"] as? [String: Any]
        #expect(error?["line"] as? Int == 67 && error?["column"] as? Int == 5, "\(refused)")
        #expect(refused["sha256"] as? String == active)
        // The old zone still decides: the cart at 3 m stays in it, the agent runs and stays small.
        // Only `near` is ever named (a loaded machine may lose the cart for a moment: zones are
        // then empty), and the cart is in it again.
        let before = subscriber.messages.filter { $0.topic.hasSuffix("/state") }.count
        let after = { subscriber.messages.filter { $0.topic.hasSuffix("/state") }.dropFirst(before).map { json($0.payload)["zones"] as? [String] ?? [] } }
        #expect(await waitUntil(timeout: 20) { after().contains(["near"]) }, "\(after())")
        #expect(after().allSatisfy { Set($0).isSubset(of: ["near"]) }, "\(after())")
        #expect(agent.process.isRunning)
        #expect(agent.residentKiB < 64 * 1024, "VmRSS \(agent.residentKiB) KiB")
    }
}
