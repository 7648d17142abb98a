import TestSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The agent and the rendered floor of its own messages at one rate, measured in turns.
struct PairedFigure: Sendable {
    var rate: Int
    /// CPU per measurement written over all of each one's slices.
    var agentMicroseconds: Double
    var floorMicroseconds: Double
    var slices: Int
    var secondsPerSlice: Double
    /// The ratio of each turn's two slices: how far one moment's figure strays from another's.
    var turnRatios: [Double]

    var ratio: Double { agentMicroseconds / floorMicroseconds }
}

/// The agent against the rendered floor (`forward-floor --packets FILE --render`) of what it
/// said at each rate, both running side by side, each fed the load in turn: one-second slices,
/// agent and floor one after the other, so that the machine's drift, which moves either alone
/// by a third from one minute to the next here, falls on both alike. The sequential
/// measurement (the agent's phases, then each floor minutes later) compares the two at
/// different moments.
///
/// Each slice follows half a second of the load unmeasured, for the caches the pause cooled.
/// The agent's pause, one slice of the floor with its half second, stays below the example
/// rules' `signal_lost_after` (2 s), hence turns that alternate (ABAB, not ABBA, whose pauses
/// of two slices are 3 s): after 3 s every peer was lost and came back afresh in the slice, and
/// with such pauses the agent cost 9–30 % more than in its own phases of the same run (likely its
/// filters not yet settled: longer numbers to write than the recording has).
func measurePairedRenderedFloor(agentExecutable: String, broker: BenchBroker, settings: PipelineSettings,
                                traffic: [Int: RecordedTraffic]) throws -> [PairedFigure] {
    let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-paired")
    let agentLink = directory.file("agent-link")
    let agentWriter = try DeviceWriter(linkPath: agentLink, peers: benchPeers.map(\.address), requiresBringUp: true)
    defer { agentWriter.stop() }
    let agent = try startBenchAgent(executable: agentExecutable, brokerPort: broker.port, link: agentLink, writer: agentWriter,
                                    directory: directory)
    defer { agent.terminate() }
    let slice = 1.0
    // As many seconds of each as the sequential window gives it, at least four turns.
    let turns = max(4, Int(settings.window.rounded()))
    var figures: [PairedFigure] = []
    for rate in settings.rates {
        guard let recording = traffic[rate] else { continue }
        let packets = directory.file("packets-\(rate)")
        try recording.write(to: packets)
        let floorLink = directory.file("floor-link-\(rate)")
        let floorWriter = try DeviceWriter(linkPath: floorLink, peers: benchPeers.map(\.address), requiresBringUp: false)
        defer { floorWriter.stop() }
        let floor = try startOwnMessagesFloor(link: floorLink, brokerPort: broker.port, packets: packets, render: true,
                                              directory: directory, name: "floor-\(rate)", readyWithin: 30)
        defer { floor.terminate() }
        var cpu = [0.0, 0.0], measurements = [0, 0]
        var turnRatios: [Double] = []
        let sides = [(agentWriter, agent.pid), (floorWriter, floor.pid)]
        for _ in 0..<turns {
            var perMeasurement = [0.0, 0.0]
            for side in [0, 1] {
                let (writer, pid) = sides[side]
                writer.setRate(measurementsPerSecond: rate)
                sleepSeconds(0.5)
                let written0 = writer.written
                let cpu0 = ProcFS.schedSeconds(pid) ?? 0
                sleepSeconds(slice)
                let cpu1 = ProcFS.schedSeconds(pid) ?? 0
                let written1 = writer.written
                writer.setRate(measurementsPerSecond: 0)
                cpu[side] += cpu1 - cpu0
                measurements[side] += (written1 - written0) * benchPeers.count
                perMeasurement[side] = (cpu1 - cpu0) / Double(max(1, (written1 - written0) * benchPeers.count))
            }
            turnRatios.append(perMeasurement[0] / perMeasurement[1])
        }
        guard measurements[0] > 0, measurements[1] > 0 else { throw BenchError("nothing written at \(rate)/s in the paired slices") }
        let figure = PairedFigure(rate: rate, agentMicroseconds: cpu[0] / Double(measurements[0]) * 1e6,
                                  floorMicroseconds: cpu[1] / Double(measurements[1]) * 1e6, slices: turns, secondsPerSlice: slice,
                                  turnRatios: turnRatios)
        log("paired at \(rate)/s (\(turns) slices of \(slice) s each): uwb2mqtt \(figure.agentMicroseconds) µs/measurement, "
            + "rendered floor \(figure.floorMicroseconds), ratio \(figure.ratio), turn by turn \(turnRatios)")
        figures.append(figure)
    }
    return figures
}
