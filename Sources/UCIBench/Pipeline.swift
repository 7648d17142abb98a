import Proximity
import TestSupport
#if canImport(Glibc)
@preconcurrency import Glibc
import RulesReading
#endif

/// One measured window at one offered rate.
struct PhaseResult: Sendable {
    var targetRate: Int
    var seconds: Double
    /// Measurements written into the pty per second (below the target when the gateway pushes back).
    var offeredRate: Double
    /// Range messages the subscriber received per second.
    var deliveredRate: Double
    var delivered: Int
    /// Gateway CPU seconds in the window: scheduler ns of live threads, and utime+stime ticks.
    var cpuSched: Double
    var cpuTicks: Double
    var latency: LatencySummary?
    /// SESSION_INFO_NTFs written into the pty in the window (each carries one measurement per peer).
    var notifications: Int
    /// Threads of the gateway at the end of the window.
    var threads: Int?
    /// Context switches of the gateway's live threads in the window.
    var contextSwitches: ContextSwitches?

    var cpuPerMeasurementMicroseconds: Double { delivered > 0 ? cpuSched / Double(delivered) * 1e6 : .nan }
    var cpuPerMeasurementTicksMicroseconds: Double { delivered > 0 ? cpuTicks / Double(delivered) * 1e6 : .nan }
    var coreShare: Double { cpuSched / seconds }
    /// Per notification, not per measurement: the gateway wakes (at best) once per read of the
    /// pty, and a notification is what arrives at once; 8 measurements in it are one wake-up.
    var contextSwitchesPerNotification: Double {
        guard let contextSwitches, notifications > 0 else { return .nan }
        return Double(contextSwitches.total) / Double(notifications)
    }
}

struct LatencySummary: Sendable {
    var samples: Int
    var expected: Int
    var p50: Double
    var p99: Double
    var max: Double     // milliseconds
}

struct MemoryResult: Sendable {
    var startKiB: Int
    var after100kKiB: Int?
    var endKiB: Int
    /// VmHWM at the end: the peak resident set over the gateway's whole life.
    var peakKiB: Int?
    /// RssAnon at the end: of the resident set, what is not the executable's and libraries' pages.
    var anonymousKiB: Int?
    var measurements: Int
    var seconds: Double
    var reachedTarget: Bool
}

/// Heap allocations (glibc malloc calls, all threads) over a window at one rate.
struct MallocResult: Sendable {
    var rate: Int
    var mallocs: Int
    /// Range messages the subscriber received in the window (perf's window starts a few
    /// milliseconds after the count does: a slight overestimate of the measurements).
    var measurements: Int
    var perMeasurement: Double { Double(mallocs) / Double(measurements) }
}

struct GatewayResult: Sendable {
    var name: String
    var phases: [PhaseResult] = []
    var memory: MemoryResult?
    var mallocs: MallocResult?
    var writeFailures = 0
    var notes: [String] = []
}

struct PipelineSettings: Sendable {
    var rates = [100, 400, 1_000, 10_000]
    /// The rate of a real installation: 8 peers ranged at 50 Hz, i.e. 50 notifications/s of 8
    /// measurements (DeviceWriter writes one notification per `peers` measurements). The table
    /// labels its row and shows the threads and context switches of its window: the figures that
    /// say what the gateway costs the host when it is not being stress-tested.
    var deploymentRate = 400
    var window = 10.0
    var latencyRate = 1_000
    var memoryMeasurements = 1_000_000
    var memoryRate = 10_000
    var memoryTimeout = 150.0
    var mallocCounter: MallocCounter?
    var mallocWindow = 3.0

    /// "8 peers × 50 Hz" for the deployment rate, nil for the others.
    func label(rate: Int, peers: Int = benchPeers.count) -> String? {
        guard rate == deploymentRate, peers > 0 else { return nil }
        let hertz = Double(rate) / Double(peers)
        let text = hertz == hertz.rounded() ? String(Int(hertz)) : String(hertz)
        return "\(peers) peers × \(text) Hz"
    }
}

enum GatewayKind: Sendable {
    case agent(executable: String)
    case python(script: String)

    var name: String {
        switch self {
        case .agent: "uwb2mqtt"
        case .python: "python"
        }
    }
}

/// The peers of every run: names that the example rules pick up (phone-* approach, tool-cart's base score).
let benchPeers: [(address: UInt16, name: String)] = [
    (1, "phone-anna"), (2, "tool-cart"), (3, "phone-ben"), (4, "cart-2"),
    (5, "phone-cleo"), (6, "badge-5"), (7, "phone-dan"), (8, "badge-7"),
]

func log(_ text: String) {
    fputs("bench: \(text)\n", stderr)
}

/// Runs one gateway process against `broker` through every phase.
func runGateway(_ kind: GatewayKind, broker: BenchBroker, settings: PipelineSettings) throws -> GatewayResult {
    var result = GatewayResult(name: kind.name)
    let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-\(kind.name)")
    let link = directory.file("dwm3001c")
    let gatewayID = kind.name == "python" ? "python" : "swift"
    let bringUp: Bool
    if case .agent = kind { bringUp = true } else { bringUp = false }

    let subscriber = try Subscriber(port: broker.port, filter: "bench/\(gatewayID)/peer/+/range", clientID: "bench-sub-\(gatewayID)")
    defer { subscriber.close() }
    let writer = try DeviceWriter(linkPath: link, peers: benchPeers.map(\.address), requiresBringUp: bringUp)
    defer { writer.stop() }

    let process: ChildProcess
    switch kind {
    case let .agent(executable):
        process = try startBenchAgent(executable: executable, brokerPort: broker.port, link: link, writer: writer, directory: directory)
    case let .python(script):
        var arguments = ["python3", script, "--port", link, "--broker-port", String(broker.port), "--base", "bench", "--gw", gatewayID]
        for peer in benchPeers { arguments += ["--peer", "0x\(String(peer.address, radix: 16))=\(peer.name)"] }
        process = try ChildProcess(executable: "/usr/bin/env", arguments: arguments,
                                   stdoutPath: directory.file("gateway.stdout"), stderrPath: directory.file("gateway.stderr"))
        // Ready: Python said "ready".
        let readyDeadline = monotonicNanoseconds() + 30_000_000_000
        while !(ProcFS.read(process.stdoutPath) ?? "").contains("ready") {
            if !process.isRunning { throw BenchError("python exited during start: \(ProcFS.read(process.stderrPath) ?? "")") }
            guard monotonicNanoseconds() < readyDeadline else {
                process.terminate()
                throw BenchError("python not ready after 30 s: \(ProcFS.read(process.stderrPath) ?? "")")
            }
            usleep(10_000)
        }
    }
    defer { process.terminate() }

    sleepSeconds(1)
    let pid = process.pid
    let rssStart = ProcFS.rssKiB(pid) ?? 0
    log("\(kind.name) (pid \(pid)) ready, VmRSS \(rssStart) KiB")

    let peerCount = benchPeers.count
    for (index, rate) in settings.rates.enumerated() {
        writer.setRate(measurementsPerSecond: rate)
        sleepSeconds(index == 0 ? 2 : 1.5)
        let latency = rate == settings.latencyRate
        var phase = measureWindow(pid: pid, rate: rate, seconds: settings.window, writer: writer, subscriber: subscriber,
                                  peers: peerCount, latency: latency)
        if latency, let summary = phase.latency {
            log("\(kind.name) latency at \(rate)/s: p50 \(summary.p50) ms, p99 \(summary.p99) ms, max \(summary.max) ms")
        }
        phase.targetRate = rate
        log("\(kind.name) at \(rate)/s offered: \(Int(phase.offeredRate))/s written, \(Int(phase.deliveredRate))/s delivered, "
            + "\(phase.cpuPerMeasurementMicroseconds) µs CPU/measurement (ticks: \(phase.cpuPerMeasurementTicksMicroseconds)), "
            + "\(phase.threads ?? -1) threads, \(phase.contextSwitchesPerNotification) context switches/notification")
        result.phases.append(phase)
    }

    // Allocations: a window of its own at the highest rate, because each counted malloc traps
    // into the kernel (a uprobe) and would inflate the CPU figures above.
    writer.setRate(measurementsPerSecond: settings.memoryRate)
    if let counter = settings.mallocCounter {
        sleepSeconds(1)
        let window = try counter.start(pid: pid, seconds: settings.mallocWindow)
        let before = subscriber.count
        let mallocs = window.finish()
        let delivered = subscriber.count - before
        if let mallocs, delivered > 0 {
            result.mallocs = MallocResult(rate: settings.memoryRate, mallocs: mallocs, measurements: delivered)
            log("\(kind.name): \(mallocs) mallocs for \(delivered) measurements at \(settings.memoryRate)/s")
        }
    }

    // Memory: on at the highest rate until the gateway has published `memoryMeasurements` in all.
    let start = monotonicNanoseconds()
    var after100k: Int?
    var reached = false
    while true {
        let count = subscriber.count
        if after100k == nil && count >= 100_000 { after100k = ProcFS.rssKiB(pid) }
        if count >= settings.memoryMeasurements { reached = true; break }
        if Double(monotonicNanoseconds() - start) / 1e9 > settings.memoryTimeout { break }
        if !process.isRunning { throw BenchError("\(kind.name) exited during the memory run") }
        usleep(20_000)
    }
    writer.setRate(measurementsPerSecond: 0)
    sleepSeconds(1)
    let measurements = subscriber.count
    let rssEnd = ProcFS.rssKiB(pid) ?? 0
    let peak = ProcFS.peakRSSKiB(pid)
    let anonymous = ProcFS.anonymousRSSKiB(pid)
    let seconds = Double(monotonicNanoseconds() - start) / 1e9
    result.memory = MemoryResult(startKiB: rssStart, after100kKiB: after100k, endKiB: rssEnd, peakKiB: peak, anonymousKiB: anonymous,
                                 measurements: measurements, seconds: seconds, reachedTarget: reached)
    log("\(kind.name) VmRSS \(rssStart) KiB at start, \(after100k ?? -1) KiB after 100k, \(rssEnd) KiB after \(measurements) measurements, "
        + "VmHWM \(peak ?? -1) KiB")
    result.writeFailures = writer.writeFailures
    if result.writeFailures > 0 { result.notes.append("\(result.writeFailures) failed writes into the pty") }
    return result
}

/// `uwb2mqtt run` as the bench runs it — gateway `swift`, the bench's peers at 50 ms, the example
/// rules, base topic `bench` — on the pty at `link`, connected to the broker at `brokerPort`;
/// returns once it has brought the device up (SESSION_START answered). `environment`: for a
/// profiler's settings.
func startBenchAgent(executable: String, brokerPort: UInt16, link: String, writer: DeviceWriter, directory: TemporaryDirectory,
                     environment: [String: String] = [:], readyWithin seconds: UInt64 = 30) throws -> ChildProcess {
    let rules = try directory.write("rules.yaml", RulesFile.exampleYAML)
    let peers = benchPeers.map { "    - {address: 0x\(String($0.address, radix: 16)), name: \($0.name)}" }.joined(separator: "\n")
    let config = try directory.write("config.yaml", """
        gateway: {id: swift}
        device:
          port: \(link)
          ranging_interval: 50ms
          peers:
        \(peers)
        mqtt:
          url: mqtt://127.0.0.1:\(brokerPort)
          base_topic: bench
          spool_dir: \(directory.file("spool"))
          metrics_interval: 5s
        rules: \(rules)
        log_level: warning

        """)
    let process = try ChildProcess(executable: executable, arguments: ["run", "--config", config],
                                   stdoutPath: directory.file("agent.stdout"), stderrPath: directory.file("agent.stderr"),
                                   environment: environment)
    let readyDeadline = monotonicNanoseconds() + seconds * 1_000_000_000
    while !writer.sessionActive {
        if !process.isRunning { throw BenchError("uwb2mqtt exited during start: \(ProcFS.read(process.stderrPath) ?? "")") }
        guard monotonicNanoseconds() < readyDeadline else {
            process.terminate()
            throw BenchError("uwb2mqtt not ready after \(seconds) s: \(ProcFS.read(process.stderrPath) ?? "")")
        }
        usleep(10_000)
    }
    return process
}

func measureWindow(pid: pid_t, rate: Int, seconds: Double, writer: DeviceWriter, subscriber: Subscriber,
                   peers: Int, latency: Bool) -> PhaseResult {
    if latency { subscriber.startRecording(reserve: Int(Double(rate) * seconds * 1.2)) }
    let written0 = writer.written
    let count0 = subscriber.count
    let sched0 = ProcFS.schedSeconds(pid) ?? 0
    let ticks0 = ProcFS.cpuSeconds(pid) ?? 0
    let switches0 = ProcFS.contextSwitches(pid)
    let t0 = monotonicNanoseconds()
    sleepSeconds(seconds)
    let t1 = monotonicNanoseconds()
    let sched1 = ProcFS.schedSeconds(pid) ?? 0
    let ticks1 = ProcFS.cpuSeconds(pid) ?? 0
    let switches1 = ProcFS.contextSwitches(pid)
    let threads = ProcFS.threadCount(pid)
    let count1 = subscriber.count
    let written1 = writer.written
    let wall = Double(t1 - t0) / 1e9
    var phase = PhaseResult(targetRate: rate, seconds: wall, offeredRate: Double((written1 - written0) * peers) / wall,
                            deliveredRate: Double(count1 - count0) / wall, delivered: count1 - count0,
                            cpuSched: sched1 - sched0, cpuTicks: ticks1 - ticks0, latency: nil,
                            notifications: written1 - written0, threads: threads,
                            contextSwitches: switches0.flatMap { before in switches1.map { $0 - before } })
    if latency {
        sleepSeconds(0.5)   // the last notifications of the window still in flight
        let samples = subscriber.stopRecording()
        let times = writer.writeTimes()
        var latencies: [Double] = []
        latencies.reserveCapacity(samples.count)
        for s in samples where Int(s.seq) >= written0 && Int(s.seq) < written1 {
            latencies.append(Double(s.receivedAt &- times[Int(s.seq)]) / 1e6)
        }
        if let dump = getenv("BENCH_LATENCY_DUMP"), let file = fopen(String(cString: dump) + "-\(pid)", "w") {
            // Diagnostics: seq, peer, write time (ms since the window's start) and latency (ms), one sample a line.
            for s in samples where Int(s.seq) >= written0 && Int(s.seq) < written1 {
                fputs("\(s.seq) \(s.mac) \(Double(times[Int(s.seq)] &- t0) / 1e6) \(Double(s.receivedAt &- times[Int(s.seq)]) / 1e6)\n", file)
            }
            fclose(file)
        }
        latencies.sort()
        if !latencies.isEmpty {
            func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int((p * Double(latencies.count)).rounded(.up)) - 1)] }
            phase.latency = LatencySummary(samples: latencies.count, expected: (written1 - written0) * peers,
                                           p50: percentile(0.5), p99: percentile(0.99), max: latencies.last!)
        }
    }
    return phase
}
