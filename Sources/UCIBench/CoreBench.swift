// The agent's decisions in process: one ranging round of 8 measurements through AgentCore — the
// filter, the example rules, and every payload rendered to bytes — as `run` and `replay` drive it,
// without the pty, the loop or the broker. What is left of the pipeline's CPU per measurement
// beyond this is I/O: reading the device, the broker socket, the kernel.
import Gateway
import Proximity
import UCI
import RulesReading

func benchCore() -> DecodeFigure {
    var (core, rounds, raw) = coreAndRounds()
    var time = 1_000.0
    let r = measure { count in runCore(&core, rounds, raw, count, time: &time) }
    let ns = r.seconds * 1e9 / Double(r.iterations)
    log("(d) AgentCore.handle, a round of 8 measurements → payloads: \(format(ns, 1)) ns/round, "
          + "\(format(ns / 8, 1)) ns/measurement [\(r.iterations) rounds in \(format(r.seconds, 3)) s, checksum \(r.checksum)]")
    return DecodeFigure(nanoseconds: ns, perSecond: Double(r.iterations) / r.seconds)
}

/// Exactly `count` rounds, untimed: for `valgrind --tool=callgrind` (instructions per round =
/// the difference of two runs with different counts, divided by the difference of the counts).
func coreRounds(_ count: Int) -> UInt64 {
    var (core, rounds, raw) = coreAndRounds()
    var time = 1_000.0
    return runCore(&core, rounds, raw, count, time: &time)
}

/// The core with the example rules and the bench's peers, and 64 rounds in which the peers walk
/// to and fro, which the runs cycle through.
private func coreAndRounds() -> (AgentCore, [SessionInfo], RawMessage) {
    let configuration = AgentConfiguration(device: AgentConfiguration.Device(
        peers: benchPeers.map { AgentConfiguration.Peer(address: $0.address, name: $0.name) }))
    var core = AgentCore(configuration: configuration, eventIDPrefix: "bench:core")
    core.replaceRules(try! RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml"), at: 1_000)
    core.clearOutbox()
    let raw = sessionInfo(measurements: 8)
    guard case let .notification(.sessionInfo(template))? = try? UCIMessage(decoding: raw) else {
        fatalError("the bench's SESSION_INFO_NTF does not decode")
    }
    let rounds: [SessionInfo] = (0..<64).map { k in
        var info = template
        var list = template.twoWayMeasurements
        for index in list.indices { list[index].distanceRaw = UInt16(150 + abs(32 - k) * (index + 3)) }
        info.measurements = .twoWay(list)
        return info
    }
    return (core, rounds, raw)
}

private func runCore(_ core: inout AgentCore, _ rounds: [SessionInfo], _ raw: RawMessage, _ count: Int, time: inout Double) -> UInt64 {
    var checksum: UInt64 = 0
    for round in 0..<count {
        time += 0.02
        core.handle(.device(.measurements(rounds[round & 63], receivedAt: time, monotonic: time, raw: raw)), at: .at(time))
        core.outbox.forEach { _, payload, _ in checksum &+= UInt64(payload.count) }
        core.clearOutbox()
    }
    return checksum
}
