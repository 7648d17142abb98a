import Foundation
import Testing
import TestSupport

/// Unplug/replug cycles against the real agent (`uwb2mqtt run --simulate`: the real
/// DeviceLinkService and SimulatorHost on a real pseudo-terminal, the USB unplug being a closed
/// pty master). Every cycle must end in ranging again, and the agent must not grow in file
/// descriptors or memory.
///
/// Why the agent as a child and not the service in the test process: descriptors and VmRSS of
/// the test process are shared with every other suite that Swift Testing runs in parallel
/// (brokers, ptys, sockets), so /proc/self would measure them too. The agent process holds the
/// service, the simulator and nothing of the tests', so /proc/PID/fd and VmRSS are its own.
@Suite(.serialized, .timeLimit(.minutes(10))) struct UnplugCycleTests {
    /// 10 cycles in `make test`, 100 in `make soak`.
    static let cycles = soak ? 100 : 10
    static let period = 2.0
    static let unplugFor = 0.3

    static var scenario: String {
        var text = """
        name: unplug-cycles
        seed: 5
        device: {ranging_interval: 0.1}
        peers:
          - {address: 0x0001, name: phone-anna, path: [{t: 0, distance: 2}]}
          - {address: 0x0002, name: tool-cart, path: [{t: 0, distance: 3}]}
        faults:

        """
        for cycle in 0..<cycles {
            text += "  - {at: \(2.0 + Double(cycle) * period), kind: unplug, duration: \(unplugFor)}\n"
        }
        return text
    }

    @Test func everyUnplugIsRecoveredWithoutDescriptorOrMemoryGrowth() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "fault-unplug")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/peer/tool-cart/range", "uwb2mqtt/gw/metrics"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool")), scenario: Self.scenario, directory: dir)
        defer { agent.stop() }

        func count(_ text: String) -> Int { agent.logLines.filter { $0.contains(text) }.count }
        // Cycle 1 is the warm-up (first reconnect paths, lazily allocated buffers): measure from there.
        await eventually("the first cycle to be recovered", timeout: 20) { count("simulated re-plug") >= 1 && count("ranging with") >= 2 }
        let fdsBefore = agent.openDescriptors
        let targetsBefore = ProcFS.descriptorTargets(pid: agent.process.pid)
        let rssBefore = agent.residentKiB
        let started = Date()

        // VmRSS every 10 cycles, to tell a trend from noise in the figures.
        var series: [Int] = []
        for mark in stride(from: 10, through: Self.cycles, by: 10) {
            await eventually("\(mark) cycles recovered", timeout: 10 * Self.period + 30) {
                count("simulated re-plug") >= mark && count("ranging with") >= mark + 1
            }
            series.append(agent.residentKiB)
        }
        let rangesAfter = subscriber.messages.filter { $0.topic.hasSuffix("/range") }.count
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: rangesAfter + 5)
        let fdsAfter = agent.openDescriptors
        let rssAfter = agent.residentKiB

        // Every cycle: unplug, then ranging again before the next unplug.
        let sequence = agent.logLines.compactMap { line -> String? in
            if line.contains("simulated unplug") { return "U" }
            if line.contains("ranging with") { return "R" }
            return nil
        }.joined()
        #expect(sequence == "R" + String(repeating: "UR", count: Self.cycles), "\(sequence)")
        #expect(agent.process.isRunning)

        let metrics = subscriber.messages.last { $0.topic.hasSuffix("/metrics") }.map { json($0.payload) }
        #expect(metrics?["device_reconnects"] as? Int == Self.cycles)

        print("FIGURES unplug: \(Self.cycles) cycles in \(String(format: "%.1f", Date().timeIntervalSince(started))) s; "
              + "fds \(fdsBefore) → \(fdsAfter); VmRSS \(rssBefore) KiB → \(rssAfter) KiB (\(rssAfter - rssBefore) KiB); every 10 cycles \(series)")
        #expect(fdsAfter == fdsBefore, "before \(targetsBefore)\nafter \(ProcFS.descriptorTargets(pid: agent.process.pid))")
        // Noise: allocator arenas and the MQTT client's buffers settle within a few hundred KiB.
        #expect(rssAfter - rssBefore < 2048, "VmRSS \(rssBefore) → \(rssAfter) KiB")
    }
}
