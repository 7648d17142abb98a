#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Where the web server listens: an IPv4 or IPv6 address and a port, as `--http` writes it:
/// `8080` (loopback), `127.0.0.1:8080`, `0.0.0.0:8080`, `[::1]:8080`, `[::]:8080`; port 0 lets
/// the kernel choose. Only numeric addresses: a name would need a resolver, and what a server
/// binds to should be exactly what was written.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The address as written (without brackets), e.g. `127.0.0.1` or `::1`.
    public let host: String
    public let port: UInt16
    public let isIPv6: Bool

    /// Parses `text`; throws the reason when it is not an address and a port.
    public init(parsing text: String) throws(ListenAddressError) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ListenAddressError("'\(text)' is not [IPv6]:PORT")
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if host == "localhost" { host = "127.0.0.1" }
            if host.contains(":") { throw ListenAddressError("'\(text)': write an IPv6 address in brackets, [::1]:PORT") }
        }
        guard let port = UInt16(portText) else { throw ListenAddressError("'\(text)' has no port from 0 to 65535 (ADDRESS:PORT or PORT)") }
        self.host = host
        self.port = port
        isIPv6 = host.contains(":")
        guard (try? sockaddrBytes()) != nil else {
            throw ListenAddressError("'\(host)' is not an IPv4 or IPv6 address (names are not resolved: write the address)")
        }
    }

    /// 127.0.0.0/8 or ::1: reachable from this machine only.
    public var isLoopback: Bool {
        isIPv6 ? host == "::1" || host == "0:0:0:0:0:0:0:1" : host.hasPrefix("127.")
    }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The same address with another port (the one the kernel chose for port 0).
    public func with(port: UInt16) -> ListenAddress {
        ListenAddress(host: host, port: port, isIPv6: isIPv6)
    }

    private init(host: String, port: UInt16, isIPv6: Bool) {
        self.host = host
        self.port = port
        self.isIPv6 = isIPv6
    }

    /// The `sockaddr_in` or `sockaddr_in6` for bind, as bytes.
    func sockaddrBytes() throws(ListenAddressError) -> [UInt8] {
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw ListenAddressError(host) }
            return withUnsafeBytes(of: &address) { Array($0) }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw ListenAddressError(host) }
        return withUnsafeBytes(of: &address) { Array($0) }
    }
}

/// Why `--http`'s value is no address to listen on.
public struct ListenAddressError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
