import Foundation
import Testing
import TestSupport

/// The request limits of mqtt-api.md against the real agent and a real broker: a retained request
/// is ignored, an oversized body or id is refused without a stall, and a flood of rules reloads
/// is coalesced and counted.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RequestLimitTests {
    @Test func aRetainedSessionStopStopsNothing() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "request-retained")
        // Left on the broker by someone who published with -r: it would stop every future start.
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/session_stop", message: "{}", retain: true)
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/device", "uwb2mqtt/gw/peer/tool-cart/range"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool")), directory: dir)
        defer { agent.stop() }
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 20, timeout: .seconds(20))
        let states = subscriber.messages.filter { $0.topic.hasSuffix("/device") }.compactMap { json($0.payload)["state"] as? String }
        #expect(!states.contains("idle"), "\(states)")
        #expect(agent.logLines.filter { $0.contains("ignored the retained message on uwb2mqtt/gw/request/session_stop") }.count == 1)
    }

    /// Clearing a retained request the way the log advises (`mosquitto_pub -r -n`) while the
    /// agent runs: the broker delivers the clear live, and on MQTT 3.1.1 it arrived as an empty
    /// `session_stop` and stopped ranging. Subscribed with retain-as-published it is a clear, and
    /// an empty live request is still a request.
    @Test func clearingARetainedRequestRunsNothing() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "request-clear")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: [
            "uwb2mqtt/gw/device", "uwb2mqtt/gw/peer/tool-cart/range", "uwb2mqtt/gw/response/#"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool")), directory: dir)
        defer { agent.stop() }
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 5, timeout: .seconds(20))
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/session_stop", message: "", retain: true)
        // An empty live ping after it: answered, so the clear before it has been read too.
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/ping", message: "")
        let pong = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping", timeout: .seconds(10))
        #expect(json(pong.payload)["ok"] as? Bool == true)
        let ranges = subscriber.messages.filter { $0.topic.hasSuffix("/range") }.count
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: ranges + 5, timeout: .seconds(10))
        let states = subscriber.messages.filter { $0.topic.hasSuffix("/device") }.compactMap { json($0.payload)["state"] as? String }
        #expect(!states.contains("idle"), "\(states)")
        #expect(!subscriber.messages.contains { $0.topic.hasSuffix("/response/session_stop") })
        #expect(!agent.logLines.contains { $0.contains("session_stop") }, "\(agent.logLines.filter { $0.contains("request") })")
    }

    /// 40 MB that would be a JSON object with an id, were it decoded.
    private func writeHugeRequest(_ dir: TemporaryDirectory) throws -> String {
        let big = dir.file("big.json")
        var body = Data(#"{"id": "big", "pad": ""#.utf8)
        body.append(Data(repeating: UInt8(ascii: "x"), count: 40_000_000))
        body.append(Data(#""}"#.utf8))
        try body.write(to: URL(fileURLWithPath: big))
        return big
    }

    /// On MQTT 5 the agent's CONNECT tells the broker the largest packet it takes (its request
    /// limit with room for the header): the broker never delivers the 40 MB, and the agent's
    /// memory stays where it was (before, it took in the whole packet, and copied it twice on
    /// the way: 132 MiB).
    @Test func anOversizedRequestNeverReachesTheAgentOnMQTT5() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "request-size", topics: ["uwb2mqtt/gw/response/ping", "uwb2mqtt/gw/peer/tool-cart/range"])
        defer { subscriber.stop(); broker.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool")), directory: dir)
        defer { agent.stop() }
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 5, timeout: .seconds(20))
        let peakBefore = ProcFS.peakResidentKiB(pid: agent.process.pid)

        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/ping", file: try writeHugeRequest(dir))
        // A ping after it is answered: the broker has dealt with the 40 MB (the one before it on
        // the same topic from the same kind of client, in order) by then.
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/ping", message: #"{"id": 7}"#)
        _ = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping", where: { json($0.payload)["id"] as? Int == 7 },
                                                timeout: .seconds(20))
        #expect(!subscriber.messages.contains { $0.topic.hasSuffix("/response/ping") && $0.payload.contains("the limit is") },
                "the broker never delivered it")
        let peakAfter = ProcFS.peakResidentKiB(pid: agent.process.pid)
        print("FIGURES oversized request on MQTT 5: VmHWM \(peakBefore) → \(peakAfter) KiB")
        #expect(peakAfter - peakBefore < 4 * 1024, "VmHWM \(peakBefore) → \(peakAfter) KiB")

        let longID = String(repeating: "i", count: 200)
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/ping", message: #"{"id": "\#(longID)"}"#)
        let bad = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping",
                                                      where: { ($0.payload as String).contains("at most 128 characters") }, timeout: .seconds(5))
        #expect(!bad.payload.contains(longID))
        let ranges = subscriber.messages.filter { $0.topic.hasSuffix("/range") }.count
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: ranges + 5, timeout: .seconds(5))
    }

    /// MQTT 3.1.1 cannot tell the broker a limit, and libmosquitto reads a packet whole (and
    /// copies its payload once more) before the agent sees it: the agent refuses the body by its
    /// size without copying it a third time, says how large it was, and answers at once after.
    @Test func onMQTT311AnOversizedBodyIsRefusedWithoutBeingCopied() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "request-size-311", topics: ["uwb2mqtt/gw/response/ping", "uwb2mqtt/gw/peer/tool-cart/range"])
        defer { subscriber.stop(); broker.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), mqttExtra: "  protocol: 3.1.1"), directory: dir)
        defer { agent.stop() }
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 5, timeout: .seconds(20))
        let peakBefore = ProcFS.peakResidentKiB(pid: agent.process.pid)

        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/ping", file: try writeHugeRequest(dir))
        let refused = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping", timeout: .seconds(20))
        let answer = json(refused.payload)
        #expect(answer["ok"] as? Bool == false)
        #expect((answer["error"] as? String)?.contains("the request body is 40000024 bytes; the limit is 4096 bytes") == true, "\(answer)")
        #expect(answer["id"] == nil, "nothing of an oversized body is echoed")
        let peakAfter = ProcFS.peakResidentKiB(pid: agent.process.pid)
        print("FIGURES oversized request on MQTT 3.1.1: VmHWM \(peakBefore) → \(peakAfter) KiB")
        // libmosquitto's packet and its copy of the payload: 2 × 38.1 MiB; a third copy (the
        // agent's) would make it 114 MiB.
        #expect(peakAfter - peakBefore < 95 * 1024, "VmHWM \(peakBefore) → \(peakAfter) KiB")

        // Right after: a ping is answered at once and ranges flow.
        let sent = ContinuousClock.now
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/ping", message: #"{"id": 7}"#)
        _ = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping", where: { json($0.payload)["id"] as? Int == 7 },
                                                timeout: .seconds(5))
        #expect(ContinuousClock.now - sent < .seconds(2))
        let ranges = subscriber.messages.filter { $0.topic.hasSuffix("/range") }.count
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: ranges + 5, timeout: .seconds(5))
        #expect(agent.residentKiB < 64 * 1024, "VmRSS \(agent.residentKiB) KiB")
    }

    @Test func aFloodOfRulesReloadsIsCoalescedAndCounted() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "request-reloads")
        let subscriber = try await MQTTTestSubscriber.start(
            broker: broker, topics: ["uwb2mqtt/gw/response/reload_rules", "uwb2mqtt/gw/rules", "uwb2mqtt/gw/metrics"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(exampleRulesPath)"),
                                     directory: dir)
        defer { agent.stop() }
        _ = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/rules", timeout: .seconds(20))
        let rulesBefore = subscriber.messages.filter { $0.topic.hasSuffix("/rules") }.count

        // 50 reloads as fast as mosquitto_pub sends them (-l: one message per input line).
        let lines = dir.file("reloads.txt")
        try (0..<50).map { #"{"id": \#($0)}"# }.joined(separator: "\n").appending("\n").write(toFile: lines, atomically: true, encoding: .utf8)
        let floodStart = ContinuousClock.now
        let flood = try ChildProcess(executable: "/bin/sh", arguments: [
            "-c", "/usr/bin/mosquitto_pub -h 127.0.0.1 -p \(broker.port) -q 1 -t uwb2mqtt/gw/request/reload_rules -l < '\(lines)'"],
            stdoutPath: dir.file("flood.out"), stderrPath: dir.file("flood.err"))
        defer { flood.terminate() }
        let answers = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/response/reload_rules", count: 50, timeout: .seconds(20))
        let seconds = (ContinuousClock.now - floodStart).components.seconds
        let accepted = answers.filter { json($0.payload)["ok"] as? Bool == true }.count
        #expect(accepted >= 1)
        #expect(accepted <= 1 + Int(seconds), "at most one reload a second: \(accepted) accepted in \(seconds + 1) s")
        let dropped = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/metrics", where: {
            (json($0.payload)["requests_dropped"] as? Int ?? 0) == 50 - accepted
        }, timeout: .seconds(5))
        #expect(json(dropped.payload)["requests_dropped"] as? Int == 50 - accepted)
        let rulesAfter = subscriber.messages.filter { $0.topic.hasSuffix("/rules") }.count
        #expect(rulesAfter - rulesBefore == accepted, "one `rules` publication per reload")
    }

    @Test func aFloodOfHomeAssistantOnlineIsCoalesced() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "request-ha-online")
        let topic = "homeassistant/sensor/uwb2mqtt_gw/phone-anna_distance/config"
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: [topic, "uwb2mqtt/gw/metrics"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), mqttExtra: "  home_assistant: true"),
                                     directory: dir)
        defer { agent.stop() }
        _ = try await subscriber.waitForMessage(topic: topic, timeout: .seconds(20))

        let lines = dir.file("online.txt")
        try String(repeating: "online\n", count: 200).write(toFile: lines, atomically: true, encoding: .utf8)
        let floodStart = ContinuousClock.now
        let flood = try ChildProcess(executable: "/bin/sh", arguments: [
            "-c", "/usr/bin/mosquitto_pub -h 127.0.0.1 -p \(broker.port) -q 1 -t homeassistant/status -l < '\(lines)'"],
            stdoutPath: dir.file("flood.out"), stderrPath: dir.file("flood.err"))
        defer { flood.terminate() }
        #expect(await flood.waitForExit(timeout: .seconds(20)) == .exited(0))
        // The coalesced announcement comes at most a second after the last one.
        let dropped = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/metrics", where: {
            (json($0.payload)["requests_dropped"] as? Int ?? 0) >= 150
        }, timeout: .seconds(10))
        _ = dropped
        _ = try await subscriber.waitForMessages(topic: topic, count: 2, timeout: .seconds(5))
        let seconds = Int((ContinuousClock.now - floodStart).components.seconds)
        let announcements = subscriber.messages.filter { $0.topic == topic }.count - 1
        #expect(announcements >= 1 && announcements <= 2 + seconds, "\(announcements) announcements in about \(seconds + 1) s")
    }
}

/// The issue's bar for floods of requests that each would journal: 10,000 `reload_rules` and
/// 10,000 Home Assistant `online` as fast as a client sends them. Afterwards a ping is answered
/// (within 30 s) and ranges flow within 10 s; the flood cost the agent less than 2 s of CPU; it
/// wrote at most 50 MB and stayed within 64 MiB.
///
/// The bound is on the agent's CPU time beyond what it spends ranging anyway, not on how long the
/// ping took: where the whole suite shares two cores the agent gets a small share of one, and the
/// ping's wall time measures that share rather than the agent. An agent that locked up would burn
/// CPU or not answer at all. The wall time is printed.
@Suite(.serialized, .timeLimit(.minutes(3))) struct JournalingFloodTests {
    @Test func twentyThousandJournalingRequestsLeaveTheAgentResponsive() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "journaling-flood", topics: ["uwb2mqtt/gw/response/ping", "uwb2mqtt/gw/peer/tool-cart/range",
                                                                                    "uwb2mqtt/gw/metrics"])
        defer { subscriber.stop(); broker.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"),
                                                        extra: "rules: \(exampleRulesPath)", mqttExtra: "  home_assistant: true"),
                                     directory: dir)
        func spoolBytes() -> Int {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: dir.file("spool"))) ?? []
            return files.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: dir.file("spool") + "/" + $1)[.size] as? Int) ?? 0) }
        }
        defer { agent.stop() }
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 10, timeout: .seconds(20))
        let writtenBefore = ProcFS.storageBytesWritten(pid: agent.process.pid)
        let spoolBefore = spoolBytes()

        // What the agent spends anyway (ranging, publishing) per second of wall time, taken off the
        // flood's CPU below: on a loaded machine the flood takes several seconds, and ranging on
        // through them is not the flood's cost.
        let idleFrom = (cpu: ProcFS.cpuSeconds(pid: agent.process.pid), at: ContinuousClock.now)
        let ranged = subscriber.messages.filter { $0.topic.hasSuffix("/range") }.count
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: ranged + 20, timeout: .seconds(20))
        let idleRate = (ProcFS.cpuSeconds(pid: agent.process.pid) - idleFrom.cpu) / Self.seconds(ContinuousClock.now - idleFrom.at)

        let reloads = dir.file("reloads.txt"), onlines = dir.file("onlines.txt")
        try String(repeating: "{}\n", count: 10_000).write(toFile: reloads, atomically: true, encoding: .utf8)
        try String(repeating: "online\n", count: 10_000).write(toFile: onlines, atomically: true, encoding: .utf8)
        let cpuBefore = ProcFS.cpuSeconds(pid: agent.process.pid)
        let start = ContinuousClock.now
        let floods = try [(reloads, "uwb2mqtt/gw/request/reload_rules"), (onlines, "homeassistant/status")].map { file, topic in
            try ChildProcess(executable: "/bin/sh", arguments: [
                "-c", "/usr/bin/mosquitto_pub -h 127.0.0.1 -p \(broker.port) -q 0 -t \(topic) -l < '\(file)'"],
                stdoutPath: dir.file("\(topic.hasPrefix("home") ? "ha" : "rr").out"), stderrPath: dir.file("\(topic.hasPrefix("home") ? "ha" : "rr").err"))
        }
        defer { for flood in floods { flood.terminate() } }
        for flood in floods { #expect(await flood.waitForExit(timeout: .seconds(60)) == .exited(0)) }
        let floodTime = ContinuousClock.now - start

        let pingSent = ContinuousClock.now
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/ping", message: #"{"id": "after"}"#)
        _ = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping", where: { json($0.payload)["id"] as? String == "after" },
                                                timeout: .seconds(30))
        let pingLatency = ContinuousClock.now - pingSent
        let total = ProcFS.cpuSeconds(pid: agent.process.pid) - cpuBefore
        let anyway = idleRate * Self.seconds(ContinuousClock.now - start)
        let cpu = ((total - anyway) * 100).rounded() / 100
        // Requests are taken in order: once the ping is answered the flood has been handled, and
        // the next metrics (every second) count all of it. One from during the flood counts part.
        let metricsBefore = subscriber.messages.filter { $0.topic == "uwb2mqtt/gw/metrics" }.count
        let ranges = subscriber.messages.filter { $0.topic.hasSuffix("/range") }.count
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: ranges + 5, timeout: .seconds(10))
        let written = ProcFS.storageBytesWritten(pid: agent.process.pid) - writtenBefore
        let journaled = spoolBytes() - spoolBefore
        let peak = ProcFS.peakResidentKiB(pid: agent.process.pid)
        let metrics = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/metrics", count: metricsBefore + 1, timeout: .seconds(5))
        let dropped = json(metrics[metricsBefore].payload)["requests_dropped"] as? Int ?? 0
        print("FIGURES journaling flood: 20,000 requests sent in \(floodTime); \(dropped) coalesced (requests_dropped); "
              + "ping answered after \(pingLatency); agent CPU \(cpu) s for the flood (\((total * 100).rounded() / 100) s in all, \((anyway * 100).rounded() / 100) s of it at the idle rate \((idleRate * 1000).rounded() / 1000) s/s); journal grew by \(journaled) bytes, write_bytes \(written); VmHWM \(peak) KiB")
        #expect(cpu < 2, "the agent spent \(cpu) s of CPU on 20,000 requests")
        #expect(dropped >= 10_000, "most of the flood reached the agent and was coalesced")
        #expect(written <= 50_000_000 && journaled <= 50_000_000)
        #expect(peak <= 64 * 1024)
        #expect(agent.process.isRunning)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
