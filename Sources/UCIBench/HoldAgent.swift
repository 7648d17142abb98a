import TestSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `uwb2mqtt-bench hold [--agent PATH] [--rate N] [--seconds S] [--floor own|rendered]`: the agent
/// on the bench's load (its peers, rules and private broker) at one rate for S seconds, its PID
/// printed once it ranges, for a profiler to attach to (`perf record -e cpu-clock -p PID`). With
/// `--floor`, the forwarder of the agent's own messages instead (recorded from the agent at that
/// rate first), replaying them or making them again. Nothing is measured. SIGINT or SIGTERM
/// ends the hold early, its processes stopped as at its end: while agents of killed holds ran
/// on, later benches here saw a fraction of their load or none (likely an orphan reopening its
/// link's pseudo-terminal number once the kernel handed it out again).
func holdAgent(options: [String: String]) -> Int32 {
    // Blocked before any thread starts, so that every thread inherits the mask and the signal
    // waits for `sigtimedwait` below (children get a clean mask from ChildProcess).
    var stops = sigset_t()
    sigemptyset(&stops)
    sigaddset(&stops, SIGINT)
    sigaddset(&stops, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &stops, nil)
    let binary = options["--agent"] ?? executableDirectory() + "/uwb2mqtt"
    let rate = options["--rate"].flatMap(Int.init) ?? PipelineSettings().deploymentRate
    let seconds = options["--seconds"].flatMap(Double.init) ?? 30
    let floor = options["--floor"]
    guard floor == nil || floor == "own" || floor == "rendered" else {
        fputs("uwb2mqtt-bench: hold: --floor is own or rendered\n", stderr)
        return 2
    }
    do {
        let broker = try BenchBroker()
        defer { broker.stop() }
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-hold")
        let link = directory.file("dwm3001c")
        let process: ChildProcess
        let writer: DeviceWriter
        if let floor {
            let recording = try recordAgentTraffic(executable: binary, broker: broker, rate: rate)
            let packets = directory.file("packets")
            try recording.write(to: packets)
            writer = try DeviceWriter(linkPath: link, peers: benchPeers.map(\.address), requiresBringUp: false)
            process = try startOwnMessagesFloor(link: link, brokerPort: broker.port, packets: packets, render: floor == "rendered",
                                                directory: directory)
        } else {
            writer = try DeviceWriter(linkPath: link, peers: benchPeers.map(\.address), requiresBringUp: true)
            process = try startBenchAgent(executable: binary, brokerPort: broker.port, link: link, writer: writer, directory: directory)
        }
        defer {
            process.terminate()
            writer.stop()
        }
        writer.setRate(measurementsPerSecond: rate)
        print("pid \(process.pid) at \(rate)/s for \(seconds) s")
        fflush(stdout)
        var until = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        while sigtimedwait(&stops, nil, &until) < 0 && errno == EINTR {}
        return 0
    } catch {
        fputs("uwb2mqtt-bench: hold: \(error)\n", stderr)
        return 1
    }
}
