import TestSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// What it costs this machine only to wake up for each notification and read it: `cat` on the
/// same pseudo-terminal, at the same rates, writing to /dev/null — no decoding, no broker. A
/// gateway cannot cost less per measurement than this; where the Python baseline costs less than
/// ten times this floor, a tenfold lead over it is not to be had by any gateway on this machine.
/// Per rate, the CPU of `cat` per measurement written (µs), from the scheduler's per-thread times.
func measureWakeFloor(settings: PipelineSettings) throws -> [(rate: Int, microsecondsPerMeasurement: Double)] {
    let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-floor")
    let link = directory.file("dwm3001c")
    let writer = try DeviceWriter(linkPath: link, peers: benchPeers.map(\.address), requiresBringUp: false)
    defer { writer.stop() }
    // Raw mode, as the gateways set it: no line discipline work, no echo back into the pty.
    let process = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "stty -F \"$0\" raw -echo && exec cat \"$0\"", link],
                                   stdoutPath: "/dev/null", stderrPath: directory.file("cat.stderr"))
    defer { process.terminate() }
    sleepSeconds(1)
    guard process.isRunning else { throw BenchError("cat on the pty exited: \(ProcFS.read(process.stderrPath) ?? "")") }
    var floors: [(rate: Int, microsecondsPerMeasurement: Double)] = []
    for rate in settings.rates {
        writer.setRate(measurementsPerSecond: rate)
        sleepSeconds(1.5)
        let written0 = writer.written
        let cpu0 = ProcFS.schedSeconds(process.pid) ?? 0
        sleepSeconds(settings.window)
        let cpu1 = ProcFS.schedSeconds(process.pid) ?? 0
        let measurements = (writer.written - written0) * benchPeers.count
        guard measurements > 0 else { continue }
        let floor = (rate: rate, microsecondsPerMeasurement: (cpu1 - cpu0) / Double(measurements) * 1e6)
        log("floor (cat reading the pty) at \(rate)/s: \(floor.microsecondsPerMeasurement) µs CPU/measurement")
        floors.append(floor)
    }
    writer.setRate(measurementsPerSecond: 0)
    return floors
}
