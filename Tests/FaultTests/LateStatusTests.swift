import SimulatorHosting
import Foundation
import Gateway
import Simulator
import Testing
import TestSupport
import UCI

/// The agent against firmware timing as it is: every status notification 3–20 ms late, in any
/// order, some before the response that caused them (the simulator's `status_delay_ms` and
/// `status_reorder`). The agent, a real broker and the simulator behind a real pseudo-terminal
/// in this process, so that the test sees every command the device received.
@Suite struct LateStatusTests {
    static let scenario = Scenario(
        name: "late-status", seed: 21,
        device: ScenarioDevice(hasAoA: false, rangingInterval: 0.1, statusDelay: 0.003...0.020, statusReorder: true),
        noise: .none,
        peers: [PeerTrack(address: 1, name: "phone-anna", path: [.init(t: 0, distance: 2)]),
                PeerTrack(address: 2, name: "tool-cart", path: [.init(t: 0, distance: 3)])])

    @Test func theAgentRangesOnceStaysThereAndStopsTheSessionOnSIGTERM() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "late-status")
        let link = dir.file("dwm3001c")
        let host = try SimulatorHost(scenario: Self.scenario, linkPath: link)
        defer { host.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/#"])
        defer { subscriber.stop() }
        let config = testConfig(url: broker.url, spool: dir.file("spool"), devicePort: link)
        let agent = try AgentProcess(config: config, scenario: nil, directory: dir)
        defer { agent.stop() }

        // Three seconds of ranging at 10 Hz.
        let ranges = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 30, timeout: .seconds(20))
        #expect(deviceStates() == ["opening", "initializing", "ranging"])
        #expect(agent.logLines.filter { $0.contains("ranging with") }.count == 1)
        // Every round delivered: the sequence numbers follow each other.
        let sequence = ranges.compactMap { json($0.payload)["seq"] as? Int }
        #expect(sequence.count == ranges.count && zip(sequence.dropFirst(), sequence).allSatisfy { $0 == $1 + 1 }, "\(sequence)")
        let events = subscriber.messages.filter { $0.topic.hasSuffix("/event") }.compactMap { json($0.payload)["type"] as? String }
        #expect(!events.contains("signal_lost"), "\(events)")

        // SIGTERM: the device sees SESSION_STOP and SESSION_DEINIT, and nothing starts again.
        #expect(agent.process.terminate() == .exited(0))
        let names = ["CORE_DEVICE_RESET", "CORE_GET_DEVICE_INFO", "CORE_GET_CAPS_INFO", "SESSION_INIT", "SESSION_SET_APP_CONFIG",
                     "SESSION_START", "SESSION_STOP", "SESSION_DEINIT"].map { $0 + "_CMD" }
        #expect(host.commandsSeen.map(\.raw.name) == names)
        #expect(Array(host.commandsSeen.suffix(2)) == [.sessionStop(sessionHandle: 1), .sessionDeinit(sessionHandle: 1)])
        // The broker took the agent's last device state before the agent went (QoS 1); it
        // reaches the subscriber on its own time.
        _ = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/device", where: { json($0.payload)["state"] as? String == "idle" })
        #expect(deviceStates().last == "idle")
        #expect(!agent.logLines.contains { $0.contains("not acknowledged") }, "\(agent.logLines.suffix(5))")

        func deviceStates() -> [String] {
            var states: [String] = []
            for message in subscriber.messages where message.topic == "uwb2mqtt/gw/device" {
                let state = json(message.payload)["state"] as? String ?? "?"
                if states.last != state { states.append(state) }
            }
            return states
        }
    }
}
