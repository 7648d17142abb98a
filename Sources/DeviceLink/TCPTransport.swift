#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A UCI byte stream over TCP (`device.port: tcp://host:port`), for a DWM3001C served by another
/// machine (`ser2net`, `socat`) or a simulator elsewhere. The peer closing is `.disconnected`,
/// just as an unplug is for a serial port, so the session recovers the same way.
public final class TCPTransport: DescriptorChannelTransport {
    public let description: String
    public let address: TCPAddress
    let channel: DescriptorChannel

    /// Resolves the host and connects, trying each address in turn, within `options.connectTimeout`
    /// overall. Name resolution itself is the system resolver's and is not bounded by the timeout.
    public init(address: TCPAddress, options: TransportOptions = TransportOptions()) throws(TransportError) {
        let fd = try Self.connect(to: address, timeout: options.connectTimeout)
        var on: Int32 = 1
        // Small UCI commands must leave at once, not wait for Nagle's timer.
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        // Keep-alive turns a silently vanished peer (power loss, cable) into ETIMEDOUT → .disconnected
        // within about half a minute instead of never; the device itself may be quiet for long.
        _ = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, socklen_t(MemoryLayout<Int32>.size))
        for (option, value) in [(TCP_KEEPIDLE, Int32(10)), (TCP_KEEPINTVL, Int32(5)), (TCP_KEEPCNT, Int32(3))] {
            var value = value
            _ = setsockopt(fd, Int32(IPPROTO_TCP), option, &value, socklen_t(MemoryLayout<Int32>.size))
        }
        self.address = address
        self.description = address.description
        channel = try DescriptorChannel(fd: fd, label: address.description, kind: .socket, writeTimeout: options.writeTimeout) { fd in
            _ = Glibc.close(fd)
        }
    }

    /// Parses `tcp://host:port` and connects.
    public convenience init(url: String, options: TransportOptions = TransportOptions()) throws(TransportError) {
        try self.init(address: TCPAddress(parsing: url), options: options)
    }

    /// A connected, non-blocking, close-on-exec socket.
    private static func connect(to address: TCPAddress, timeout: Duration) throws(TransportError) -> Int32 {
        let name = address.description
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(address.host, String(address.port), &hints, &list)
        guard resolved == 0, let first = list else {
            let text = String(cString: gai_strerror(resolved))
            if resolved == EAI_NONAME {
                throw .notFound("\(name): unknown host '\(address.host)' (\(text))")
            }
            throw .unreachable("\(name): cannot resolve '\(address.host)': \(text)")
        }
        defer { freeaddrinfo(list) }

        let deadline = Deadline(after: timeout)
        var lastError: TransportError = .unreachable("\(name): no address to connect to")
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry?.pointee {
            entry = info.ai_next
            let type = info.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            let fd = socket(info.ai_family, type, info.ai_protocol)
            guard fd >= 0 else {
                lastError = .io("\(name): cannot create socket: \(errnoText(errno))")
                continue
            }
            do {
                try finishConnect(fd: fd, to: info, deadline: deadline, name: name, timeout: timeout)
                return fd
            } catch {
                _ = Glibc.close(fd)
                lastError = error
                if case .timedOut = error { break }
            }
        }
        throw lastError
    }

    private static func finishConnect(fd: Int32, to info: addrinfo, deadline: Deadline, name: String,
                                      timeout: Duration) throws(TransportError) {
        if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) == 0 { return }
        var code = errno
        if code == EINPROGRESS || code == EINTR {
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            while true {
                let ready = poll(&entry, 1, deadline.pollMilliseconds)
                if ready < 0 && errno == EINTR { continue }
                if ready == 0 {
                    throw .timedOut("\(name): no answer within \(timeout.shortDescription) (host down or port filtered?)")
                }
                break
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) == 0 else {
                throw .io("\(name): cannot read connect result: \(errnoText(errno))")
            }
            if soError == 0 { return }
            code = soError
        }
        switch code {
        case ECONNREFUSED:
            throw .unreachable("\(name): connection refused (nothing is listening there; is the device server running?)")
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN, EHOSTDOWN:
            throw .unreachable("\(name): \(errnoText(code))")
        case ETIMEDOUT:
            throw .timedOut("\(name): connect timed out")
        case EACCES, EPERM:
            throw .permissionDenied("\(name): connect not permitted: \(errnoText(code))")
        default:
            throw .io("\(name): connect failed: \(errnoText(code))")
        }
    }
}
