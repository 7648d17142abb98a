#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation
import Gateway
@testable import Commands
import Testing
import TestSupport

/// `SystemdNotifier` against a real AF_UNIX datagram socket, as systemd's manager listens.
@Suite struct SystemdNotifierTests {
    /// A bound datagram socket: a path in a temp dir, or an abstract name (`@…`).
    final class Listener {
        let descriptor: Int32
        let address: String

        init(path: String) throws {
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            address = path
            var bytes = Array(path.utf8)
            let abstract = bytes.first == UInt8(ascii: "@")
            if abstract { bytes[0] = 0 }
            var socketAddress = sockaddr_un()
            socketAddress.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + bytes.count + (abstract ? 0 : 1))
            let rc = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
            }
            guard descriptor >= 0, rc == 0 else { throw TestSupportError.system(call: "bind \(path)", errno: errno) }
        }

        deinit { close(descriptor) }

        /// The next datagram, waiting at most `timeoutMilliseconds` (poll: returns as soon as it arrives).
        func receive(timeoutMilliseconds: Int32 = 2000) -> String? {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, timeoutMilliseconds) == 1 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count >= 0 else { return nil }
            return String(decoding: buffer[0..<count], as: UTF8.self)
        }
    }

    @Test func sendsReadyStatusWatchdogAndStoppingToAPathSocket() throws {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-notify")
        let listener = try Listener(path: directory.file("notify"))
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address])
        #expect(notifier.isActive)

        #expect(notifier.ready(status: "ranging, broker connected"))
        #expect(listener.receive() == "READY=1\nSTATUS=ranging, broker connected")
        #expect(notifier.status("device absent\nretrying"))
        #expect(listener.receive() == "STATUS=device absent retrying")
        #expect(notifier.watchdog())
        #expect(listener.receive() == "WATCHDOG=1")
        #expect(notifier.reloading())
        #expect(listener.receive() == "RELOADING=1")
        #expect(notifier.stopping())
        #expect(listener.receive() == "STOPPING=1")
    }

    @Test func sendsToAnAbstractSocket() throws {
        let name = "@uwb2mqtt-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let listener = try Listener(path: name)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": name])
        #expect(notifier.ready())
        #expect(listener.receive() == "READY=1")
    }

    @Test func isANoOpOutsideSystemd() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isActive)
        #expect(!notifier.ready())
        #expect(!notifier.watchdog())
        #expect(notifier.watchdogInterval == nil)
    }

    @Test func reportsFalseWhenNobodyListens() throws {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-notify")
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": directory.file("gone")])
        #expect(notifier.isActive)
        #expect(!notifier.watchdog())
    }

    @Test func watchdogIntervalIsHalfTheTimeout() {
        let notifier = SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "\(getpid())"])
        #expect(notifier.watchdogTimeout == .seconds(30))
        #expect(notifier.watchdogInterval == .seconds(15))
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000"]).watchdogInterval == .seconds(15))
    }

    /// Inherited from a parent: the watchdog belongs to another process (sd_watchdog_enabled(3)).
    @Test func watchdogOfAnotherProcessIsIgnored() {
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"]).watchdogInterval == nil || getpid() == 1)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "0"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "soon"]).watchdogInterval == nil)
    }
}
