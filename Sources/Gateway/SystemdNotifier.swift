#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import FoundationEssentials

/// `sd_notify(3)` without libsystemd: the protocol is one `AF_UNIX` datagram of `KEY=value` lines
/// to the socket `$NOTIFY_SOCKET` names, small enough that linking libsystemd (one more runtime
/// dependency on every gateway) buys nothing (swift-linux-notes.md §6.2).
///
/// The unit (`deploy/uwb2mqtt.service`) is `Type=notify` with `WatchdogSec=30`: systemd considers
/// the agent started only after `READY=1`, and kills it with SIGABRT when no `WATCHDOG=1` arrives
/// within 30 s. Send `WATCHDOG=1` every `watchdogInterval` (half the timeout, as libsystemd's
/// documentation recommends) and only from the agent's health check — when the device loop and the
/// MQTT loop have shown progress — never from a free-running timer, or a wedged agent is never
/// restarted.
///
/// Outside systemd (`NOTIFY_SOCKET` unset) every call is a no-op that returns false, so the agent
/// runs the same from a terminal.
public struct SystemdNotifier: Sendable {
    /// The socket address from `NOTIFY_SOCKET`: a file system path, or `@name` for the abstract
    /// namespace. nil when not started by systemd with notify access.
    public let socketPath: String?
    /// How often to send `WATCHDOG=1`: half of `WATCHDOG_USEC`. nil when systemd set no watchdog
    /// for this process (unset, zero, unparsable, or `WATCHDOG_PID` names another process).
    public let watchdogInterval: Duration?
    /// The watchdog timeout itself (`WATCHDOG_USEC`), for log lines.
    public let watchdogTimeout: Duration?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment` (the process
    /// environment by default; tests pass their own).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let socket = environment["NOTIFY_SOCKET"], !socket.isEmpty, socket.hasPrefix("/") || socket.hasPrefix("@") {
            socketPath = socket
        } else {
            socketPath = nil
        }
        var timeout: Duration?
        if let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0,
           microseconds < UInt64(Int64.max) {
            // sd_watchdog_enabled(3): WATCHDOG_PID, when set, must be this process; otherwise the
            // variables were inherited from a parent and the watchdog is not ours to feed.
            if let pidText = environment["WATCHDOG_PID"] {
                if let pid = Int32(pidText), pid == getpid() { timeout = .microseconds(Int64(microseconds)) }
            } else {
                timeout = .microseconds(Int64(microseconds))
            }
        }
        watchdogTimeout = timeout
        watchdogInterval = timeout.map { $0 / 2 }
    }

    /// True when started by systemd with a notify socket.
    public var isActive: Bool { socketPath != nil }

    /// `READY=1`, with an optional status line: start-up is complete (device link and MQTT client
    /// started; they retry on their own, so "ready" does not wait for the broker).
    @discardableResult
    public func ready(status: String? = nil) -> Bool {
        notify(["READY=1"] + (status.map { ["STATUS=" + Self.singleLine($0)] } ?? []))
    }

    /// `STATUS=…`: the one line `systemctl status uwb2mqtt` shows (e.g. "ranging, 2 peers, broker connected").
    @discardableResult
    public func status(_ text: String) -> Bool {
        notify(["STATUS=" + Self.singleLine(text)])
    }

    /// `WATCHDOG=1`: the agent is healthy. Call every `watchdogInterval`, from the health check.
    @discardableResult
    public func watchdog() -> Bool {
        notify(["WATCHDOG=1"])
    }

    /// `RELOADING=1`: a reload (SIGHUP, `systemctl reload`) has begun; send `ready()` when done.
    @discardableResult
    public func reloading(status: String? = nil) -> Bool {
        notify(["RELOADING=1"] + (status.map { ["STATUS=" + Self.singleLine($0)] } ?? []))
    }

    /// `STOPPING=1`: a clean shutdown has begun (so systemd does not mistake the exit for a crash
    /// while the agent publishes `offline` and flushes its spool).
    @discardableResult
    public func stopping(status: String? = nil) -> Bool {
        notify(["STOPPING=1"] + (status.map { ["STATUS=" + Self.singleLine($0)] } ?? []))
    }

    /// Sends the assignments as one datagram (newline-separated, as sd_notify does). Returns false
    /// when not under systemd or when the send failed; a failed notification is never fatal to the
    /// agent (systemd then reports the unit itself).
    @discardableResult
    public func notify(_ assignments: [String]) -> Bool {
        guard let socketPath, !assignments.isEmpty else { return false }
        return Self.send(assignments.joined(separator: "\n"), to: socketPath)
    }

    /// Status text is one line of the protocol: a newline would start a new assignment.
    static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    /// One datagram to a path or abstract (`@name`) AF_UNIX socket. A fresh socket per message:
    /// messages are seconds apart, and no descriptor is held open across a fork or exec.
    static func send(_ message: String, to path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(path.utf8)
        let abstract = pathBytes.first == UInt8(ascii: "@")
        if abstract { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // A path socket needs room for its terminating NUL; an abstract name is length-delimited.
        guard pathBytes.count + (abstract ? 0 : 1) <= capacity, !pathBytes.dropFirst(abstract ? 1 : 0).contains(0) else {
            return false
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + pathBytes.count + (abstract ? 0 : 1))

        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let bytes = Array(message.utf8)
        let sent = bytes.withUnsafeBytes { buffer in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    sendto(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), socketAddress, length)
                }
            }
        }
        return sent == bytes.count
    }
}
