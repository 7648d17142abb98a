/// A `tcp://host:port` device address: a UCI byte stream served over TCP (a remote gateway's
/// `ser2net`/`socat`, or the simulator run elsewhere).
///
/// Parsed strictly: a mistyped address in `device.port` should fail at start-up with a message
/// that says what is wrong, not turn into a connection to some other host or port.
public struct TCPAddress: Sendable, Equatable, CustomStringConvertible {
    /// Host name, IPv4 address, or IPv6 address without brackets.
    public let host: String
    public let port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `tcp://host:port`, `tcp://1.2.3.4:port` or `tcp://[::1]:port`.
    public init(parsing text: String) throws(TransportError) {
        let scheme = "tcp://"
        guard text.lowercased().hasPrefix(scheme) else {
            throw .invalidAddress("\(text): a TCP address starts with tcp://")
        }
        let rest = text.dropFirst(scheme.count)
        guard !rest.isEmpty else { throw .invalidAddress("\(text): missing host and port (tcp://host:port)") }
        if let bad = rest.first(where: { "/?#@ ".contains($0) }) {
            throw .invalidAddress("\(text): unexpected '\(bad)'; only tcp://host:port is accepted")
        }
        let hostPart: Substring
        let portPart: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw .invalidAddress("\(text): IPv6 address is missing its closing ']'")
            }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            guard after.hasPrefix(":") else { throw .invalidAddress("\(text): missing :port after the IPv6 address") }
            portPart = after.dropFirst()
        } else {
            guard let colon = rest.lastIndex(of: ":") else {
                throw .invalidAddress("\(text): missing :port (tcp://host:port)")
            }
            hostPart = rest[..<colon]
            portPart = rest[rest.index(after: colon)...]
            if hostPart.contains(":") {
                throw .invalidAddress("\(text): an IPv6 address must be in brackets (tcp://[::1]:port)")
            }
        }
        guard !hostPart.isEmpty else { throw .invalidAddress("\(text): missing host (tcp://host:port)") }
        guard !portPart.isEmpty else { throw .invalidAddress("\(text): missing port number after ':'") }
        guard portPart.allSatisfy({ $0.isASCII && $0.isNumber }), portPart.count <= 5,
              let number = Int(portPart), (1...65_535).contains(number) else {
            throw .invalidAddress("\(text): port must be a number from 1 to 65535, not '\(portPart)'")
        }
        host = String(hostPart)
        port = UInt16(number)
    }

    public var description: String {
        host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)"
    }
}
