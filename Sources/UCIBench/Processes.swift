import TestSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// What /proc says about a process.
enum ProcFS {
    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// utime + stime of every thread, live and exited, in seconds (clock ticks, 10 ms here).
    static func cpuSeconds(_ pid: pid_t) -> Double? {
        guard let text = read("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); utime is field 14, stime field 15.
        guard fields.count > 12, let u = Double(fields[11]), let s = Double(fields[12]) else { return nil }
        return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The thread IDs in /proc/PID/task: the threads alive now.
    static func taskIDs(_ pid: pid_t) -> [String]? {
        guard let dir = opendir("/proc/\(pid)/task") else { return nil }
        defer { closedir(dir) }
        var ids: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.first?.isNumber == true { ids.append(name) }
        }
        return ids
    }

    /// Threads of the process now: a gateway built on one event loop should show one (plus
    /// whatever its libraries start), and the table shows what each gateway really runs.
    static func threadCount(_ pid: pid_t) -> Int? { taskIDs(pid)?.count }

    /// Time on CPU of the live threads, in seconds, from the scheduler's nanosecond accounting
    /// (/proc/PID/task/TID/schedstat, first field): finer than the 10 ms ticks of `cpuSeconds`.
    static func schedSeconds(_ pid: pid_t) -> Double? {
        guard let ids = taskIDs(pid) else { return nil }
        var total: UInt64 = 0
        for id in ids {
            guard let text = read("/proc/\(pid)/task/\(id)/schedstat"),
                  let first = text.split(separator: " ").first, let ns = UInt64(first) else { continue }
            total += ns
        }
        return Double(total) / 1e9
    }

    /// Context switches of the live threads so far, summed over /proc/PID/task/TID/status:
    /// /proc/PID/status alone counts the main thread only. A thread that exits between two
    /// readings takes its switches with it, so only threads that live through a window count fully.
    static func contextSwitches(_ pid: pid_t) -> ContextSwitches? {
        guard let ids = taskIDs(pid) else { return nil }
        var total = ContextSwitches()
        for id in ids {
            guard let text = read("/proc/\(pid)/task/\(id)/status") else { continue }
            total.voluntary += statusValue(text, "voluntary_ctxt_switches") ?? 0
            total.nonvoluntary += statusValue(text, "nonvoluntary_ctxt_switches") ?? 0
        }
        return total
    }

    /// VmRSS in KiB.
    static func rssKiB(_ pid: pid_t) -> Int? {
        read("/proc/\(pid)/status").flatMap { statusValue($0, "VmRSS") }
    }

    /// VmHWM in KiB: the peak resident set since the process started, which a reading of VmRSS
    /// at the end of a run misses when the gateway grew and gave memory back in between.
    static func peakRSSKiB(_ pid: pid_t) -> Int? {
        read("/proc/\(pid)/status").flatMap { statusValue($0, "VmHWM") }
    }

    /// RssAnon in KiB: the resident pages that are the process's own (heap, stacks), without the
    /// executable's and libraries' pages, which are clean page cache shared with every other user.
    static func anonymousRSSKiB(_ pid: pid_t) -> Int? {
        read("/proc/\(pid)/status").flatMap { statusValue($0, "RssAnon") }
    }

    /// The number after `key:` in a status file (`VmRSS:\t  1234 kB`, `voluntary_ctxt_switches:\t56`).
    static func statusValue(_ text: String, _ key: String) -> Int? {
        let prefix = key + ":"
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            let rest = line.dropFirst(prefix.count)
            return rest.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
        }
        return nil
    }
}

/// Voluntary (the thread blocked: waiting for input, a lock, a sleep) and nonvoluntary (the
/// scheduler took the CPU away) context switches.
struct ContextSwitches: Sendable {
    var voluntary = 0
    var nonvoluntary = 0
    var total: Int { voluntary + nonvoluntary }

    static func - (a: ContextSwitches, b: ContextSwitches) -> ContextSwitches {
        ContextSwitches(voluntary: a.voluntary - b.voluntary, nonvoluntary: a.nonvoluntary - b.nonvoluntary)
    }
}

/// A private mosquitto for the bench: like TestSupport's `MosquittoBroker` (posix_spawn with a
/// clean signal mask, stopped by PID) but logging errors only — `log_type all` would write two
/// lines per message at 10,000 messages/s and tax the two cores the gateways are measured on.
final class BenchBroker {
    let port: UInt16
    let directory: TemporaryDirectory
    let process: ChildProcess

    init() throws {
        directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-broker")
        port = try freeLoopbackPort()
        let config = try directory.write("mosquitto.conf", """
            user root
            persistence false
            log_dest stderr
            log_type error
            listener \(port) 127.0.0.1
            allow_anonymous true
            max_queued_messages 100000
            set_tcp_nodelay true

            """)
        process = try ChildProcess(executable: "/usr/sbin/mosquitto", arguments: ["-c", config],
                                   stdoutPath: directory.file("mosquitto.stdout"), stderrPath: directory.file("mosquitto.log"))
        try waitForListener(port: port, timeout: 10)
    }

    func stop() { process.terminate() }
}

/// A TCP socket connected to 127.0.0.1:port, or nil (errno says why).
func connectToLoopback(port: UInt16) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard rc == 0 else {
        let code = errno
        close(fd)
        errno = code
        return nil
    }
    return fd
}

/// Polls a TCP connect to 127.0.0.1:port until it succeeds.
func waitForListener(port: UInt16, timeout: Double) throws {
    let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
    while true {
        if let fd = connectToLoopback(port: port) {
            close(fd)
            return
        }
        if monotonicNanoseconds() > deadline { throw BenchError("nothing listens on 127.0.0.1:\(port) after \(timeout) s") }
        usleep(20_000)
    }
}

/// This executable's directory (the agent binary is built beside it).
func executableDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return "." }
    let path = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

func sleepSeconds(_ seconds: Double) { usleep(UInt32(max(0, seconds) * 1e6)) }
