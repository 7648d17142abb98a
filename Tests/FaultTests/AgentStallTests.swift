import SimulatorHosting
import Foundation
import DeviceLink
import Gateway
import Simulator
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The agent itself stops for 5 s (SIGSTOP: as a starved or swapped-out process on a small board)
/// while the device keeps ranging. The tags did not go anywhere: no signal_lost, and every peer's
/// messages stay in time order. The simulator runs in the test process, so it goes on meanwhile.
@Suite(.serialized) struct AgentStallTests {
    @Test func aStallOfTheAgentIsNotASignalLoss() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "agent-stall")
        let link = dir.file("dwm3001c")
        let scenario = Scenario(
            name: "stall", seed: 3, device: ScenarioDevice(hasAoA: false, rangingInterval: 0.1), noise: .none,
            peers: [PeerTrack(address: 1, name: "phone-anna", path: [.init(t: 0, distance: 0.8)]),
                    PeerTrack(address: 2, name: "tool-cart", path: [.init(t: 0, distance: 3)])])
        let host = try SimulatorHost(scenario: scenario, linkPath: link)
        defer { host.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/peer/+/range", "uwb2mqtt/gw/peer/+/event"])
        defer { subscriber.stop() }
        let config = testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(exampleRulesPath)", devicePort: link)
        let agent = try AgentProcess(config: config, scenario: nil, directory: dir)
        defer { agent.stop() }
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 20, timeout: .seconds(20))

        #expect(kill(agent.process.pid, SIGSTOP) == 0)
        // The length of the fault, not a synchronisation.
        try await Task.sleep(for: .seconds(5))
        #expect(kill(agent.process.pid, SIGCONT) == 0)
        let before = subscriber.messages.filter { $0.topic.hasSuffix("tool-cart/range") }.count
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: before + 30, timeout: .seconds(20))

        #expect(agent.log.contains("the agent did not run for"), "\(agent.log)")
        let events = subscriber.messages.filter { $0.topic.hasSuffix("/event") }.map { json($0.payload) }
        #expect(!events.contains { $0["type"] as? String == "signal_lost" }, "\(events)\n\(agent.log)")
        // Every peer's messages in time order.
        for peer in ["phone-anna", "tool-cart"] {
            let stamps = subscriber.messages.filter { $0.topic.contains("/\(peer)/") }.compactMap { json($0.payload)["ts"] as? String }
            #expect(stamps == stamps.sorted(), "\(peer): \(stamps)")
        }
    }
}

/// Hostile bytes on the serial line, as fast as the terminal takes them: the agent keeps running
/// and says so in a few lines with counts, not one line per packet.
@Suite(.serialized) struct HostileBytesLogTests {
    @Test func aFloodOfGarbageCostsAFewLogLines() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "hostile-bytes")
        let terminal = try PseudoTerminal()
        defer { terminal.close() }
        try terminal.link(at: dir.file("dwm3001c"))
        let config = """
        gateway: {id: gw}
        device:
          port: \(dir.file("dwm3001c"))
          peers:
            - {address: 0x0001, name: phone-anna}
        mqtt:
          url: \(broker.url)
          spool_dir: \(dir.file("spool"))
        """
        let agent = try AgentProcess(config: config, scenario: nil, directory: dir)
        defer { agent.stop() }
        // The agent has opened the port when it asks for a reset.
        var heard: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while !heard.starts(with: [0x20, 0x00]), ContinuousClock.now < deadline {
            heard += try terminal.read(maximum: 64, timeout: .zero)
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(heard.starts(with: [0x20, 0x00]))
        // 2 s of random bytes (headers of every kind, false lengths), in packet-sized writes.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let end = ContinuousClock.now + .seconds(2)
        var written = 0
        while ContinuousClock.now < end {
            let garbage = (0..<64).map { _ -> UInt8 in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
            try terminal.write(garbage)
            written += garbage.count
            _ = try? terminal.read(maximum: 4096, timeout: .zero)
            // Yield now and then: the rest of the suite shares the test process's threads.
            if written % 4096 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        // The agent reports them: wait for the first report, then for it to be through the flood.
        await eventually("a discard report") { agent.log.contains("discarded") }
        let lines = agent.logLines.filter { $0.contains("discarded") || $0.contains("malformed") || $0.contains("more like it") }
        #expect(agent.process.isRunning)
        #expect(lines.count <= 4, "\(written) garbage bytes gave \(lines.count) lines: \(lines.prefix(5))")
    }
}
