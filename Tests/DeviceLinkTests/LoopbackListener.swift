#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A real TCP listener on 127.0.0.1 with a kernel-chosen port, and the one connection it accepts:
/// the far end for `TCPTransport` tests. Closes its sockets on deinit, so a failing test leaks none.
final class LoopbackListener {
    let port: UInt16
    private let listenFD: Int32
    private(set) var connectionFD: Int32 = -1

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            _ = close(fd)
            throw TestFailure("bind/listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listenFD = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        closeConnection()
        _ = close(listenFD)
    }

    /// Accepts one connection, waiting at most `within`.
    func accept(within: Duration = .seconds(5)) throws {
        var entry = pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(within.components.seconds * 1000)) == 1 else { throw TestFailure("no connection to accept") }
        let fd = Glibc.accept(listenFD, nil, nil)
        guard fd >= 0 else { throw TestFailure("accept: errno \(errno)") }
        connectionFD = fd
    }

    func send(_ bytes: [UInt8]) throws {
        let n = bytes.withUnsafeBytes { Glibc.send(connectionFD, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n == bytes.count else { throw TestFailure("send: \(n), errno \(errno)") }
    }

    /// Receives until `count` bytes arrived, the peer closed, or `within` passed.
    func receive(_ count: Int, within: Duration = .seconds(5)) throws -> [UInt8] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: within)
        var bytes: [UInt8] = []
        while bytes.count < count, clock.now < deadline {
            var entry = pollfd(fd: connectionFD, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 100) >= 0 else { throw TestFailure("poll: errno \(errno)") }
            guard entry.revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: count - bytes.count)
            let n = buffer.withUnsafeMutableBytes { recv(connectionFD, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            bytes += buffer[..<n]
        }
        return bytes
    }

    func closeConnection() {
        if connectionFD >= 0 { _ = close(connectionFD) }
        connectionFD = -1
    }
}
