#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Synchronization

/// Ports already given out in this process. A broker that is stopped and restarted leaves its port
/// free for a moment; remembering what was handed out keeps a parallel test from taking it then.
private let handedOutPorts = Mutex<Set<UInt16>>([])

/// A TCP port on 127.0.0.1 that nothing listens on now.
///
/// Each test gets its own port so that Swift Testing can run broker tests in parallel. The port is
/// picked at random BELOW the kernel's ephemeral range (`ip_local_port_range`): a port from that
/// range (what bind to port 0 returns) can be taken as the local end of any outgoing connection —
/// the tests' own clients — between this check and the broker's bind, which was seen to make
/// mosquitto exit with "address in use". Falls back to bind-to-0 if the range leaves no room.
public func freeLoopbackPort() throws(TestSupportError) -> UInt16 {
    let ephemeralStart = ephemeralRangeStart()
    let low = 10_000
    for _ in 0..<200 {
        let candidate: UInt16
        if ephemeralStart > low + 1000 {
            candidate = UInt16(Int.random(in: low..<ephemeralStart))
            guard canBind(candidate) else { continue }
        } else {
            candidate = try bindPort(0)
        }
        let isNew = handedOutPorts.withLock { $0.insert(candidate).inserted }
        if isNew { return candidate }
    }
    throw .system(call: "no free loopback port found", errno: EADDRINUSE)
}

/// The first port of `/proc/sys/net/ipv4/ip_local_port_range` (Linux default 32768).
private func ephemeralRangeStart() -> Int {
    let text = readText("/proc/sys/net/ipv4/ip_local_port_range")
    return text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
}

private func canBind(_ port: UInt16) -> Bool {
    (try? bindPort(port)) != nil
}

/// Waits until something accepts TCP connections on 127.0.0.1:`port`, or throws at the deadline.
/// Polling with a short interval: the condition is "the port accepts", not a fixed sleep.
public func waitForPort(_ port: UInt16, timeout: Duration) async throws(TestSupportError) {
    let deadline = ContinuousClock.now + timeout
    while !canConnect(port) {
        if ContinuousClock.now >= deadline {
            throw .timedOut(waitingFor: "127.0.0.1:\(port) to accept connections", after: timeout, detail: "")
        }
        try? await Task.sleep(for: .milliseconds(20))
    }
}

private func loopbackAddress(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(port).bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
    return address
}

/// Binds 127.0.0.1:`port` (0 = kernel's choice), closes the socket and returns the bound port.
private func bindPort(_ port: UInt16) throws(TestSupportError) -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
    defer { close(fd) }
    var address = loopbackAddress(port: port)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw .system(call: "bind", errno: errno) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else { throw .system(call: "getsockname", errno: errno) }
    return UInt16(bigEndian: address.sin_port)
}

private func canConnect(_ port: UInt16) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = loopbackAddress(port: port)
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    return rc == 0
}
