import TestSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `uwb2mqtt-bench hold [--agent PATH] [--rate N] [--seconds S]`: the agent on the bench's load
/// (its peers, rules and private broker) at one rate for S seconds, its PID printed once it
/// ranges, for a profiler to attach to (`perf record -e cpu-clock -p PID`). Nothing is measured.
func holdAgent(options: [String: String]) -> Int32 {
    let binary = options["--agent"] ?? executableDirectory() + "/uwb2mqtt"
    let rate = options["--rate"].flatMap(Int.init) ?? PipelineSettings().deploymentRate
    let seconds = options["--seconds"].flatMap(Double.init) ?? 30
    do {
        let broker = try BenchBroker()
        defer { broker.stop() }
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-hold")
        let link = directory.file("dwm3001c")
        let writer = try DeviceWriter(linkPath: link, peers: benchPeers.map(\.address), requiresBringUp: true)
        defer { writer.stop() }
        let agent = try startBenchAgent(executable: binary, brokerPort: broker.port, link: link, writer: writer, directory: directory)
        defer { agent.terminate() }
        writer.setRate(measurementsPerSecond: rate)
        print("pid \(agent.pid) at \(rate)/s for \(seconds) s")
        fflush(stdout)
        sleepSeconds(seconds)
        return 0
    } catch {
        fputs("uwb2mqtt-bench: hold: \(error)\n", stderr)
        return 1
    }
}
