import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What an MQTT 5 client gets from the agent (docs/mqtt-api.md, "MQTT 5"), seen with the real
/// `mosquitto_pub -V 5` and `mosquitto_sub -V 5` against a real mosquitto: answers on the
/// requester's response topic with its correlation data, the contract's properties on every
/// message, live data that expires, a will that waits out a restart, and the broker's refusals
/// in the log and the metrics.
@Suite(.serialized, .timeLimit(.minutes(3))) struct MQTT5Tests {
    /// `mosquitto_pub -V 5` with a response topic and correlation data.
    func request(_ broker: MosquittoBroker, _ name: String, _ body: String, responseTopic: String?, correlation: String,
                 user: [String] = []) async throws {
        var arguments = ["-V", "5", "-D", "publish", "correlation-data", correlation] + user
        if let responseTopic { arguments += ["-D", "publish", "response-topic", responseTopic] }
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/\(name)", message: body, extraArguments: arguments)
    }

    @Test func aV5ClientGetsEachAnswerOnItsResponseTopicWithItsCorrelationData() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "mqtt5-response")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["clients/#", "uwb2mqtt/gw/#"], mqtt5Properties: true)
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"),
                                                        mqttExtra: "  response_topic_prefixes: [clients/]"), directory: dir)
        defer { agent.stop() }
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 3, timeout: .seconds(20))

        // Under an allowed prefix, and under the gateway's own response/ level.
        try await request(broker, "ping", #"{"id": 1}"#, responseTopic: "clients/app-1/answers", correlation: "req-0001")
        let first = try await subscriber.waitForMessage(topic: "clients/app-1/answers")
        #expect(json(first.payload)["ok"] as? Bool == true && json(first.payload)["id"] as? Int == 1)
        #expect(first.properties?.correlationData == "req-0001")
        #expect(first.properties?.contentType == "application/json" && first.properties?.userProperties == "schema_version:1")
        #expect(first.properties?.messageExpiry == "", "an answer does not expire")
        try await request(broker, "state", "", responseTopic: "uwb2mqtt/gw/response/state/app-2", correlation: "req-0002")
        let second = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/state/app-2")
        #expect(second.properties?.correlationData == "req-0002")
        #expect((json(second.payload)["data"] as? [String: Any])?["peers"] is [Any])
        #expect(!subscriber.messages.contains { $0.topic == "uwb2mqtt/gw/response/ping" || $0.topic == "uwb2mqtt/gw/response/state" },
                "not on the v1 topics as well")

        // Anywhere else — the gateway's own event topic, another gateway's tree — the request is
        // refused on the v1 topic, with the reason and the correlation data.
        for (n, topic) in ["uwb2mqtt/gw/peer/tool-cart/event", "uwb2mqtt/other/response/ping", "clients/+/x"].enumerated() {
            try await request(broker, "ping", #"{"id": "bad-\#(n)"}"#, responseTopic: topic, correlation: "req-bad-\(n)")
            let refused = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping",
                                                              where: { $0.properties?.correlationData == "req-bad-\(n)" })
            let answer = json(refused.payload)
            #expect(answer["ok"] as? Bool == false)
            #expect((answer["error"] as? String)?.contains("the response topic \"\(topic)\"") == true, "\(answer)")
        }
        #expect(!subscriber.messages.contains { $0.topic == "uwb2mqtt/gw/peer/tool-cart/event" || $0.topic.hasPrefix("uwb2mqtt/other") })

        // Without a response topic: the v1 topic, still with the correlation data.
        try await request(broker, "ping", "", responseTopic: nil, correlation: "req-0003")
        let v1 = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping", where: { $0.properties?.correlationData == "req-0003" })
        #expect(json(v1.payload)["ok"] as? Bool == true)
    }

    /// Every message carries the content type and the schema version; live data expires after
    /// `mqtt.message_expiry`, events and retained state never. A subscriber whose session kept
    /// range messages through a 7 s outage gets none older than the expiry.
    @Test func liveDataExpiresAndEverythingSaysWhatItIs() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "mqtt5-expiry")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/#"], mqtt5Properties: true)
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"),
                                                        mqttExtra: "  qos_ranges: 1\n  message_expiry: 3s"), directory: dir)
        defer { agent.stop() }
        _ = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/metrics", timeout: .seconds(20))
        let seen = subscriber.messages.filter { !$0.payload.isEmpty }
        #expect(!seen.isEmpty && seen.allSatisfy { $0.properties?.contentType == "application/json" && $0.properties?.userProperties == "schema_version:1" },
                "\(seen.filter { $0.properties?.contentType != "application/json" }.map(\.topic))")
        let live = seen.filter { ["range", "metrics"].contains($0.topic.split(separator: "/").last.map(String.init) ?? "") }
        let lasting = seen.filter { ["status", "device", "state", "rules"].contains($0.topic.split(separator: "/").last.map(String.init) ?? "") }
        #expect(!live.isEmpty && live.allSatisfy { (Int($0.properties?.messageExpiry ?? "") ?? 99) <= 3 })
        #expect(!lasting.isEmpty && lasting.allSatisfy { $0.properties?.messageExpiry == "" })

        // A subscriber with a session the broker keeps (clean start off, session expiry 60 s),
        // away for 7 s: what the broker queued for it meanwhile must not be older than 3 s.
        let topic = "uwb2mqtt/gw/peer/tool-cart/range"
        let away = try await MQTTTestSubscriber.start(broker: broker, topics: [topic], clientID: "mqtt5-away",
                                                      extraArguments: ["-c", "-x", "60"], mqtt5Properties: true)
        try await away.waitForMessage(topic: topic)
        away.kill(SIGKILL)
        // The outage's length is the fault under test, not a synchronisation.
        try await Task.sleep(for: .seconds(7))
        let back = try await MQTTTestSubscriber.start(broker: broker, topics: [topic], clientID: "mqtt5-away",
                                                      extraArguments: ["-c", "-x", "60"], mqtt5Properties: true)
        defer { back.stop() }
        let returned = Date().timeIntervalSince1970
        let delivered = try await back.waitForMessages(topic: topic, count: 10)
        let oldest = delivered.compactMap { AgentFixtures.json($0.payload)["ts"] as? String }.compactMap(parseRFC3339).min() ?? 0
        // The broker counts expiry in whole seconds: up to 4 s; without it, 7 s.
        #expect(returned - oldest < 5, "the oldest range delivered was \(returned - oldest) s old")
    }

    /// With `will_delay`, an agent killed and started again at once never shows offline; one
    /// that stays away does, after the delay.
    @Test func aQuickRestartDoesNotFlapTheStatus() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "mqtt5-will-delay")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/status"])
        defer { subscriber.stop() }
        let config = testConfig(url: broker.url, spool: dir.file("spool"), mqttExtra: "  will_delay: 3s")
        let first = try AgentProcess(config: config, directory: dir, name: "first")
        defer { first.stop() }
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/status", where: { $0.payload.contains("online") }, timeout: .seconds(20))
        first.process.kill(SIGKILL)
        let second = try AgentProcess(config: config, directory: dir, name: "second")
        defer { second.stop() }
        // The second agent's online (its own ts) arrives; nothing said offline in between.
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/status", count: 2, timeout: .seconds(20))
        #expect(!subscriber.messages.contains { $0.payload.contains("offline") }, "\(subscriber.messages.map(\.payload))")

        second.process.kill(SIGKILL)
        let killed = ContinuousClock.now
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/status", where: { $0.payload == #"{"state":"offline"}"# }, timeout: .seconds(15))
        #expect(ContinuousClock.now - killed >= .milliseconds(2500), "the will waits for will_delay")
    }

    /// An ACL that forbids the agent one of its topics: the broker refuses those messages with
    /// reason 0x87; the log says so once per topic, `publishes_refused` counts every one, and the
    /// rest flows.
    @Test func refusedPublishesAreSaidOncePerTopicAndCounted() async throws {
        let directory = try TemporaryDirectory(prefix: "mqtt5-refused")
        let passwords = try await MosquittoPasswordFile.create(in: directory, users: [("gateway", "gateway-pw"), ("reader", "reader-pw")])
        let acl = try directory.write("acl", """
            user gateway
            topic readwrite uwb2mqtt/gw/#
            topic deny uwb2mqtt/gw/peer/+/state
            user reader
            topic read uwb2mqtt/#
            """)
        let broker = try await MosquittoBroker.start(.init(passwordFile: passwords, extraConfig: ["acl_file \(acl)"]))
        defer { broker.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/#"], extraArguments: ["-u", "reader", "-P", "reader-pw"])
        defer { subscriber.stop() }
        let passwordFile = try directory.write("gateway.password", "gateway-pw\n")
        chmod(passwordFile, 0o600)
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: directory.file("spool"),
                                                        mqttExtra: "  username: gateway\n  password_file: \(passwordFile)"),
                                     directory: directory)
        defer { agent.stop() }
        let metrics: MQTTTestSubscriber.Message
        do {
            metrics = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/metrics", where: { (json($0.payload)["publishes_refused"] as? Int ?? 0) >= 4 },
                                                          timeout: .seconds(20))
        } catch {
            Issue.record("\(error): agent log \(agent.logLines)")
            return
        }
        #expect(json(metrics.payload)["dropped"] as? Int == 0)
        #expect(!subscriber.messages.contains { $0.topic.hasSuffix("/state") })
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 5)
        let lines = agent.logLines.filter { $0.contains("the broker refused a message on") }
        #expect(lines.count == 2, "once per state topic (phone-anna, tool-cart): \(lines)")
        #expect(lines.allSatisfy { $0.contains("Not authorized") && $0.contains("0x87") }, "\(lines)")
    }
}

/// `2026-12-05T02:21:55.738Z` as seconds since 1970.
func parseRFC3339(_ text: String) -> Double? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)?.timeIntervalSince1970
}
