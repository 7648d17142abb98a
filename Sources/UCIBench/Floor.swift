import TestSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A floor: a process far simpler than a gateway, fed the same notifications at the same rates.
/// Per rate, its CPU per measurement written (µs, from the scheduler's per-thread times) and,
/// where it publishes, the messages the broker delivered in the window.
struct FloorFigure: Sendable {
    var rate: Int
    var microsecondsPerMeasurement: Double
    var delivered: Int?
}

/// What it costs this machine only to wake up for each notification and read it: `cat` on the
/// same pseudo-terminal, writing to /dev/null — no decoding, no broker. A gateway cannot cost
/// less per measurement than this.
func measureWakeFloor(settings: PipelineSettings) throws -> [FloorFigure] {
    try measureFloor(name: "cat reading the pty", settings: settings) { link, directory in
        // Raw mode, as the gateways set it: no line discipline work, no echo back into the pty.
        try ChildProcess(executable: "/bin/sh", arguments: ["-c", "stty -F \"$0\" raw -echo && exec cat \"$0\"", link],
                         stdoutPath: "/dev/null", stderrPath: directory.file("cat.stderr"))
    }
}

/// What it costs this machine to read each notification and publish the Python baseline's
/// messages for it, and nothing else (ForwardFloor.swift), through the bench's broker.
func measureForwardFloor(settings: PipelineSettings, broker: BenchBroker) throws -> [FloorFigure] {
    let subscriber = try Subscriber(port: broker.port, filter: "bench/floor/peer/+/range", clientID: "bench-sub-floor")
    defer { subscriber.close() }
    return try measureFloor(name: "forwarder", settings: settings, subscriber: subscriber) { link, directory in
        try ChildProcess(executable: executableDirectory() + "/uwb2mqtt-bench",
                         arguments: ["forward-floor", "--port", link, "--broker-port", String(broker.port)],
                         stdoutPath: directory.file("floor.stdout"), stderrPath: directory.file("floor.stderr"))
    }
}

func measureFloor(name: String, settings: PipelineSettings, subscriber: Subscriber? = nil,
                          start: (_ link: String, _ directory: TemporaryDirectory) throws -> ChildProcess) throws -> [FloorFigure] {
    let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-floor")
    let link = directory.file("dwm3001c")
    let writer = try DeviceWriter(linkPath: link, peers: benchPeers.map(\.address), requiresBringUp: false)
    defer { writer.stop() }
    let process = try start(link, directory)
    defer { process.terminate() }
    sleepSeconds(1)
    guard process.isRunning else { throw BenchError("\(name) exited: \(ProcFS.read(process.stderrPath) ?? "")") }
    var floors: [FloorFigure] = []
    for rate in settings.rates {
        writer.setRate(measurementsPerSecond: rate)
        sleepSeconds(1.5)
        let written0 = writer.written
        let delivered0 = subscriber?.count
        let cpu0 = ProcFS.schedSeconds(process.pid) ?? 0
        sleepSeconds(settings.window)
        let cpu1 = ProcFS.schedSeconds(process.pid) ?? 0
        let measurements = (writer.written - written0) * benchPeers.count
        guard measurements > 0 else { continue }
        let floor = FloorFigure(rate: rate, microsecondsPerMeasurement: (cpu1 - cpu0) / Double(measurements) * 1e6,
                                delivered: delivered0.map { subscriber!.count - $0 })
        log("floor (\(name)) at \(rate)/s: \(floor.microsecondsPerMeasurement) µs CPU/measurement"
            + (floor.delivered.map { ", \($0) of \(measurements) delivered" } ?? ""))
        // A forwarder whose messages do not arrive has not done the work its figure stands for.
        if let delivered = floor.delivered, Double(delivered) < 0.9 * Double(measurements) {
            throw BenchError("\(name) at \(rate)/s: \(delivered) of \(measurements) messages delivered")
        }
        floors.append(floor)
    }
    writer.setRate(measurementsPerSecond: 0)
    return floors
}
