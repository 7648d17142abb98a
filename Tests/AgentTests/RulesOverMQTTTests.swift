import Foundation
import Testing
import TestSupport

/// Rules managed over MQTT (docs/mqtt-api.md, "Rules over MQTT") with the real agent and a real
/// mosquitto: `rules_get` and `rules_set` on one gateway, and a site-wide `rules_topic` that
/// three gateways follow.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RulesOverMQTTTests {
    static let near = "version: 1\nzones:\n  - {name: near, enter_within: 4, exit_beyond: 4.5}\n"
    static let far = "version: 1\nzones:\n  - {name: far, enter_within: 8, exit_beyond: 9}\n"
    /// Broken on line 3, column 30: exit_beyond must lie beyond enter_within.
    static let broken = "version: 1\nzones:\n  - {name: bad, enter_within: 4, exit_beyond: 3}\n"

    static func sha256(_ text: String) throws -> String {
        let out = try runSync("/usr/bin/sha256sum", input: text)
        return String(out.prefix(64))
    }

    @Test func rulesSetReplacesTheFileAndABrokenOneChangesNothing() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "rules-set", topics: ["uwb2mqtt/gw/rules", "uwb2mqtt/gw/response/#"])
        defer { subscriber.stop(); broker.stop() }
        let rulesPath = try dir.write("rules.yaml", Self.near)
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(rulesPath)"), directory: dir)
        defer { agent.stop() }
        let nearSHA = try Self.sha256(Self.near), farSHA = try Self.sha256(Self.far)
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules", where: { json($0.payload)["sha256"] as? String == nearSHA }, timeout: .seconds(20))

        // rules_get: the active file, whole, and its sha256.
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/rules_get", message: #"{"id": "g1"}"#)
        let got = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/rules_get").payload)
        let data = try #require(got["data"] as? [String: Any], "\(got)")
        #expect(data["sha256"] as? String == nearSHA && data["rules"] as? String == Self.near && data["source"] as? String == rulesPath)

        // rules_set with the file as the body: written, the old one kept, loaded, answered.
        let farFile = try dir.write("far.yaml", Self.far)
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/rules_set", file: farFile)
        let set = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/rules_set").payload)
        #expect(set["ok"] as? Bool == true && (set["data"] as? [String: Any])?["sha256"] as? String == farSHA
                && (set["data"] as? [String: Any])?["changed"] as? Bool == true, "\(set)")
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules", where: { json($0.payload)["sha256"] as? String == farSHA })
        #expect(try String(contentsOfFile: rulesPath, encoding: .utf8) == Self.far)
        #expect(try String(contentsOfFile: rulesPath + ".bak", encoding: .utf8) == Self.near)

        // Broken, in a JSON body with an id: nothing changes, and the answer and the rules topic
        // say where (paced: one rules_set a second).
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["id": "s2", "rules": Self.broken]), as: UTF8.self)
        try await Task.sleep(for: .milliseconds(1100))
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/rules_set", message: body)
        let refused = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/rules_set", where: { $0.payload.contains("s2") }).payload)
        #expect(refused["ok"] as? Bool == false)
        #expect((refused["error"] as? String)?.hasPrefix("rules_set:3:") == true, "\(refused)")
        let status = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules", where: { json($0.payload)["ok"] as? Bool == false }).payload)
        #expect(status["sha256"] as? String == farSHA, "the active rules stay")
        #expect((status["error"] as? [String: Any])?["line"] as? Int == 3, "\(status)")
        #expect(try String(contentsOfFile: rulesPath, encoding: .utf8) == Self.far, "the file stays")

        // Not UTF-8, and too large: clear errors, nothing read.
        try await Task.sleep(for: .milliseconds(1100))
        let latin1 = dir.file("latin1.yaml")
        try Data([0x7A, 0x6F, 0x6E, 0x65, 0xE9, 0x0A]).write(to: URL(fileURLWithPath: latin1))
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/rules_set", file: latin1)
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/rules_set", where: { $0.payload.contains("the rules are not UTF-8 text") })
        let huge = try dir.write("huge.yaml", "# " + String(repeating: "x", count: 70_000) + "\n")
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/rules_set", file: huge, qos: 0)
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/ping", message: #"{"id": "after"}"#)
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping", where: { $0.payload.contains("after") })
        #expect(try String(contentsOfFile: rulesPath, encoding: .utf8) == Self.far)
    }

    /// One retained message on the site topic reaches three gateways — one of them started
    /// afterwards, as a gateway that was offline — and each reports the new sha256; a broken one
    /// changes nothing anywhere, and each says where it is broken.
    @Test func siteRulesReachEveryGatewayAndABrokenOneChangesNothing() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "rules-site")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/+/rules"])
        defer { subscriber.stop() }
        let ids = ["gw-a", "gw-b", "gw-c"]
        let nearSHA = try Self.sha256(Self.near), farSHA = try Self.sha256(Self.far)
        var paths: [String: String] = [:]
        func start(_ id: String) throws -> AgentProcess {
            let path = try dir.write("\(id)-rules.yaml", Self.near)
            paths[id] = path
            let config = testConfig(url: broker.url, spool: dir.file("\(id)-spool"), extra: "rules: \(path)\nrules_topic: uwb2mqtt-fleet/rules")
                .replacingOccurrences(of: "gateway: {id: gw}", with: "gateway: {id: \(id)}")
            return try AgentProcess(config: config, directory: dir, name: id)
        }
        func report(_ id: String, _ predicate: @escaping ([String: Any]) -> Bool) async throws -> [String: Any] {
            json(try await subscriber.waitForMessage(topic: "uwb2mqtt/\(id)/rules", where: { predicate(json($0.payload)) }, timeout: .seconds(20)).payload)
        }
        let a = try start("gw-a"), b = try start("gw-b")
        defer { a.stop(); b.stop() }
        for id in ids.prefix(2) { _ = try await report(id) { $0["sha256"] as? String == nearSHA } }

        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt-fleet/rules", message: Self.far, retain: true)
        for id in ids.prefix(2) { _ = try await report(id) { $0["sha256"] as? String == farSHA && $0["ok"] as? Bool == true } }
        let c = try start("gw-c")
        defer { c.stop() }
        _ = try await report("gw-c") { $0["sha256"] as? String == farSHA && $0["ok"] as? Bool == true }
        for id in ids { #expect(try String(contentsOfFile: paths[id]!, encoding: .utf8) == Self.far, "\(id)") }

        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt-fleet/rules", message: Self.broken, retain: true)
        for id in ids {
            let failed = try await report(id) { $0["ok"] as? Bool == false }
            #expect(failed["sha256"] as? String == farSHA, "\(id) keeps its rules")
            let error = failed["error"] as? [String: Any]
            #expect(error?["line"] as? Int == 3 && (error?["message"] as? String)?.isEmpty == false, "\(id): \(failed)")
            #expect(try String(contentsOfFile: paths[id]!, encoding: .utf8) == Self.far, "\(id)")
        }
        for agent in [a, b, c] {
            #expect(agent.logLines.contains { $0.contains("written from uwb2mqtt-fleet/rules and loaded") })
        }
    }
}

/// Runs `executable` with `input` on stdin and returns its stdout.
private func runSync(_ executable: String, input: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    let stdin = Pipe(), stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let data = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
