import TestSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Counts a process's calls to glibc's `malloc` over a window, with a perf uprobe.
///
/// "Allocation-light" is a claim to prove with a number: heap allocations per measurement
/// through the whole gateway process. A uprobe counts every call into libc's `malloc` (Swift's
/// allocations go through it), in any thread, without instrumenting the binary. It needs `perf`
/// and root; without them the bench says why and leaves the column empty. A probe this run added
/// is removed again by `remove()`.
struct MallocCounter {
    static let event = "probe_libc:malloc"
    let perf: String
    private let addedProbe: Bool

    /// Sets the probe up, or says why it cannot.
    static func prepare() -> Result<MallocCounter, BenchError> {
        let candidates: [String] = ["/usr/bin/perf", "/usr/local/bin/perf"]
        guard let perf = candidates.first(where: { path in access(path, X_OK) == 0 }) else {
            return .failure(BenchError("perf is not installed"))
        }
        guard geteuid() == 0 else { return .failure(BenchError("perf uprobes need root")) }
        guard let libc = libcPath() else { return .failure(BenchError("libc.so.6 not found in /proc/self/maps")) }
        if (try? output(perf, ["probe", "-l"]))?.contains(event) == true {
            return .success(MallocCounter(perf: perf, addedProbe: false))
        }
        do {
            _ = try output(perf, ["probe", "-x", libc, "--add", "malloc"])
        } catch {
            return .failure(BenchError("perf probe -x \(libc) --add malloc failed: \(error)"))
        }
        return .success(MallocCounter(perf: perf, addedProbe: true))
    }

    /// Starts counting `pid`'s malloc calls for `seconds`; `finish` returns the count.
    func start(pid: pid_t, seconds: Double) throws -> Window {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-perf")
        let out = directory.file("perf.out"), err = directory.file("perf.err")
        let child = try ChildProcess(executable: perf, arguments: ["stat", "-x", ",", "-e", Self.event, "-p", String(pid),
                                                                   "--", "sleep", String(seconds)],
                                     stdoutPath: out, stderrPath: err)
        return Window(directory: directory, child: child, errPath: err)
    }

    struct Window {
        let directory: TemporaryDirectory
        let child: ChildProcess
        let errPath: String

        /// Waits for perf to end its window and reads its CSV line (`count,,event,…`).
        func finish() -> Int? {
            let deadline = monotonicNanoseconds() + 10_000_000_000
            while child.isRunning && monotonicNanoseconds() < deadline { usleep(10_000) }
            child.terminate(grace: .seconds(1))
            let text = ProcFS.read(errPath) ?? ""
            for line in text.split(separator: "\n") where line.contains(MallocCounter.event) {
                return Int(line.split(separator: ",", omittingEmptySubsequences: false).first ?? "")
            }
            return nil
        }
    }

    func remove() {
        guard addedProbe else { return }
        _ = try? Self.output(perf, ["probe", "-d", Self.event])
    }

    private static func libcPath() -> String? {
        guard let maps = ProcFS.read("/proc/self/maps") else { return nil }
        for line in maps.split(separator: "\n") {
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.hasSuffix("/libc.so.6") else { continue }
            return String(path)
        }
        return nil
    }

    /// Runs a short command to completion; its stdout, or an error with its stderr.
    private static func output(_ executable: String, _ arguments: [String]) throws -> String {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-cmd")
        let out = directory.file("out"), err = directory.file("err")
        let child = try ChildProcess(executable: executable, arguments: arguments, stdoutPath: out, stderrPath: err)
        let deadline = monotonicNanoseconds() + 30_000_000_000
        while child.isRunning && monotonicNanoseconds() < deadline { usleep(10_000) }
        let status = child.terminate(grace: .seconds(1))
        guard status == .exited(0) else { throw BenchError("\(status): \(ProcFS.read(err) ?? "")") }
        return ProcFS.read(out) ?? ""
    }
}
