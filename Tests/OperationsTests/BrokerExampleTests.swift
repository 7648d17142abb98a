import Foundation
import Testing
import TestSupport

/// deploy/mosquitto's example broker config and ACL, run by a real mosquitto: each role can do
/// what it needs and nothing more, and an oversized packet is refused.
@Suite struct BrokerExampleTests {
    static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../deploy/mosquitto").standardized.path
    static let users = ["gateway", "integrator", "homeassistant", "admin", "phone-app"]

    /// A marker published by the same user right after: once it arrives, the broker has dealt
    /// with what came before it (mosquitto_pub returns after the PUBACK).
    func attempt(_ broker: MosquittoBroker, as user: String, topic: String, message: String = "x") async {
        try? await MQTTTestPublisher.publish(broker: broker, topic: topic, message: message, extraArguments: ["-u", user, "-P", "\(user)-pw"])
    }

    @Test func eachRoleGetsOnlyWhatItNeeds() async throws {
        let directory = try TemporaryDirectory(prefix: "broker-example")
        let passwords = try await MosquittoPasswordFile.create(in: directory, users: Self.users.map { ($0, "\($0)-pw") })
        let acl = try String(contentsOfFile: Self.deploy + "/acl", encoding: .utf8).replacingOccurrences(of: "lobby", with: "gw")
        let aclPath = try directory.write("acl", acl)
        // The example's own settings, on the test's port (the listener line is the test broker's).
        let example = try String(contentsOfFile: Self.deploy + "/uwb2mqtt.conf", encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") && !$0.hasPrefix("listener") && !$0.hasPrefix("password_file") && !$0.hasPrefix("acl_file")
                      && !$0.hasPrefix("allow_anonymous") && !$0.hasPrefix("persistence") && !$0.isEmpty }
            .map(String.init)
        #expect(example == ["max_packet_size 65536"])
        let broker = try await MosquittoBroker.start(.init(passwordFile: passwords, extraConfig: example + ["acl_file \(aclPath)"]))
        defer { broker.stop() }
        // An observer with every read right of the example: Home Assistant's. The users below
        // publish markers, not payloads, on the agent's topics: not held to the API's document.
        let observer = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/#", "homeassistant/#"],
                                                          extraArguments: ["-u", "homeassistant", "-P", "homeassistant-pw"], checksContract: false)
        defer { observer.stop() }

        let allowed = [("gateway", "uwb2mqtt/gw/status"), ("gateway", "homeassistant/sensor/uwb2mqtt_gw/anna_distance/config"),
                       ("integrator", "uwb2mqtt/gw/request/ping"), ("integrator", "uwb2mqtt/gw/request/state"),
                       ("admin", "uwb2mqtt/gw/request/session_stop"), ("admin", "uwb2mqtt/other/request/reload_rules"),
                       ("phone-app", "uwb2mqtt/gw/request/phone_session"), ("phone-app", "uwb2mqtt/gw/request/phone_session_stop"),
                       ("phone-app", "uwb2mqtt/gw/request/phone_session_start")]
        // Phones' reports are the gateway's to read, no one else's.
        let reports = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/phone/+/report"],
                                                         extraArguments: ["-u", "gateway", "-P", "gateway-pw"])
        defer { reports.stop() }
        let denied = [("gateway", "uwb2mqtt/other/status"), ("gateway", "homeassistant/sensor/some_light/config"),
                      ("integrator", "uwb2mqtt/gw/request/session_stop"), ("integrator", "uwb2mqtt/gw/request/device_reset"),
                      ("integrator", "uwb2mqtt/gw/status"), ("homeassistant", "uwb2mqtt/gw/request/reload_rules"),
                      ("admin", "uwb2mqtt/gw/status"), ("phone-app", "uwb2mqtt/gw/request/session_stop"),
                      ("phone-app", "uwb2mqtt/gw/status"), ("integrator", "uwb2mqtt/gw/phone/anna/report"),
                      ("homeassistant", "uwb2mqtt/gw/phone/anna/report")]
        for (user, topic) in denied { await attempt(broker, as: user, topic: topic, message: "denied") }
        // Over the packet size limit: the client is disconnected, nothing is delivered.
        await attempt(broker, as: "admin", topic: "uwb2mqtt/gw/request/ping", message: String(repeating: "p", count: 70_000))
        for (user, topic) in allowed { await attempt(broker, as: user, topic: topic, message: "allowed") }
        for (_, topic) in allowed { try await observer.waitForMessage(topic: topic, where: { $0.payload == "allowed" }, timeout: .seconds(10)) }
        await attempt(broker, as: "phone-app", topic: "uwb2mqtt/gw/phone/anna/report", message: "report")
        try await reports.waitForMessage(topic: "uwb2mqtt/gw/phone/anna/report", where: { $0.payload == "report" }, timeout: .seconds(10))
        #expect(!reports.messages.contains { $0.payload == "denied" }, "only phone apps write reports")

        let leaked = observer.messages.filter { $0.payload == "denied" || $0.payload.count > 65_000 }
        #expect(leaked.isEmpty, "\(leaked.map(\.topic))")

        // The answer to phone_session carries a session key: phone apps read it, Home Assistant
        // and integrators do not.
        let phone = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/+/response/#"],
                                                       extraArguments: ["-u", "phone-app", "-P", "phone-app-pw"], checksContract: false)
        defer { phone.stop() }
        await attempt(broker, as: "gateway", topic: "uwb2mqtt/gw/response/phone_session", message: "key")
        await attempt(broker, as: "gateway", topic: "uwb2mqtt/gw/response/phone_session_start", message: "key")
        await attempt(broker, as: "gateway", topic: "uwb2mqtt/gw/response/ping", message: "pong")
        try await phone.waitForMessage(topic: "uwb2mqtt/gw/response/phone_session", where: { $0.payload == "key" }, timeout: .seconds(10))
        try await observer.waitForMessage(topic: "uwb2mqtt/gw/response/ping", where: { $0.payload == "pong" }, timeout: .seconds(10))
        #expect(!observer.messages.contains { $0.payload == "key" || $0.payload == "report" },
                "Home Assistant read a phone's session key or report")
        #expect(!phone.messages.contains { $0.payload == "pong" }, "phone apps read only their own answers")
    }

    /// The real agent behind the example broker and ACL: an integrator's `rules_set` and site
    /// rules are refused by the broker and change nothing; the operator's go through; the agent
    /// serves everyone throughout.
    @Test func onlyTheOperatorChangesRulesAndTheAgentServesEveryone() async throws {
        let directory = try TemporaryDirectory(prefix: "broker-example-rules")
        let passwords = try await MosquittoPasswordFile.create(in: directory, users: Self.users.map { ($0, "\($0)-pw") })
        let acl = try String(contentsOfFile: Self.deploy + "/acl", encoding: .utf8).replacingOccurrences(of: "lobby", with: "gw")
        let aclPath = try directory.write("acl", acl)
        let broker = try await MosquittoBroker.start(.init(passwordFile: passwords, extraConfig: ["max_packet_size 65536", "acl_file \(aclPath)"]))
        defer { broker.stop() }
        let observer = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/rules", "uwb2mqtt/gw/response/#"],
                                                          extraArguments: ["-u", "admin", "-P", "admin-pw"])
        defer { observer.stop() }
        let near = "version: 1\nzones:\n  - {name: near, enter_within: 4, exit_beyond: 4.5}\n"
        let far = "version: 1\nzones:\n  - {name: far, enter_within: 8, exit_beyond: 9}\n"
        let rulesPath = try directory.write("rules.yaml", near)
        let passwordFile = try directory.write("gateway.password", "gateway-pw\n")
        chmod(passwordFile, 0o600)
        let config = AgentFixtures.config(url: broker.url, spool: directory.file("spool"),
                                          extra: "rules: \(rulesPath)\nrules_topic: uwb2mqtt-fleet/rules",
                                          mqttExtra: "  username: gateway\n  password_file: \(passwordFile)")
        let agent = try AgentProcess(config: config, directory: directory)
        defer { agent.stop() }
        try await observer.waitForMessage(topic: "uwb2mqtt/gw/rules", where: { $0.payload.contains("\"ok\": true") }, timeout: .seconds(20))

        await attempt(broker, as: "integrator", topic: "uwb2mqtt/gw/request/rules_set", message: far)
        await attempt(broker, as: "integrator", topic: "uwb2mqtt-fleet/rules", message: far)
        await attempt(broker, as: "integrator", topic: "uwb2mqtt/gw/request/ping", message: #"{"id": "i1"}"#)
        try await observer.waitForMessage(topic: "uwb2mqtt/gw/response/ping", where: { $0.payload.contains("i1") }, timeout: .seconds(10))
        await attempt(broker, as: "integrator", topic: "uwb2mqtt/gw/request/rules_get", message: #"{"id": "i2"}"#)
        let got = try await observer.waitForMessage(topic: "uwb2mqtt/gw/response/rules_get", where: { $0.payload.contains("i2") }, timeout: .seconds(10))
        #expect(got.payload.contains("near") && !got.payload.contains("far"))
        #expect(!observer.messages.contains { $0.topic.hasSuffix("/response/rules_set") }, "the broker refused it: the agent never saw it")
        #expect(try String(contentsOfFile: rulesPath, encoding: .utf8) == near)

        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt-fleet/rules", message: far, retain: true,
                                            extraArguments: ["-u", "admin", "-P", "admin-pw"])
        try await observer.waitForMessage(topic: "uwb2mqtt/gw/rules", where: { $0.payload.contains("\"ok\": true") && $0.payload.contains("\"far\"") },
                                          timeout: .seconds(10))
        #expect(try String(contentsOfFile: rulesPath, encoding: .utf8) == far)
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/rules_set", message: near,
                                            extraArguments: ["-u", "admin", "-P", "admin-pw"])
        let set = try await observer.waitForMessage(topic: "uwb2mqtt/gw/response/rules_set", timeout: .seconds(10))
        #expect(set.payload.contains("\"ok\": true"), "\(set.payload)")
        #expect(try String(contentsOfFile: rulesPath, encoding: .utf8) == near)
    }
}
