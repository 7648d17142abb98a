/// Where the broker is: host, port and whether TLS is used, parsed from `mqtt.url`.
///
/// Parsed by hand rather than with Foundation's `URL` so that every mistake gets its own message
/// (`mqtt://host:99999` → "port 99999 is out of range 1…65535") and so that credentials written
/// into the URL are refused and never echoed back.
public struct MQTTBrokerAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var useTLS: Bool

    public static let defaultPort = 1883
    public static let defaultTLSPort = 8883

    public init(host: String, port: Int, useTLS: Bool) {
        self.host = host
        self.port = port
        self.useTLS = useTLS
    }

    /// `mqtt://host[:port]` (default port 1883) or `mqtts://host[:port]` (8883). The host is a
    /// name, an IPv4 address, or an IPv6 address in brackets. A single trailing `/` is allowed.
    public init(url: String) throws(MQTTError) {
        func fail(_ reason: String) -> MQTTError {
            .invalidURL(url: MQTTBrokerAddress.redacted(url), reason: reason)
        }
        guard !url.isEmpty else { throw fail("it is empty") }
        guard let schemeEnd = Self.schemeSeparator(in: url) else {
            throw fail("missing scheme (write mqtt://host:port or mqtts://host:port)")
        }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        switch scheme {
        case "mqtt": useTLS = false
        case "mqtts": useTLS = true
        default: throw fail("unsupported scheme '\(scheme)' (use mqtt:// or mqtts://)")
        }
        var rest = Substring(url[schemeEnd.upperBound...])
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("@") {
            throw fail("credentials in the URL are not allowed (use username and password_file)")
        }
        if rest.contains("/") || rest.contains("?") || rest.contains("#") {
            throw fail("a path, query or fragment is not allowed")
        }
        if rest.contains(where: { $0.isWhitespace }) { throw fail("it contains whitespace") }

        let hostPart: Substring
        let portPart: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw fail("unterminated IPv6 address '['") }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.isEmpty {
                portPart = nil
            } else if after.hasPrefix(":") {
                portPart = after.dropFirst()
            } else {
                throw fail("unexpected '\(after)' after the IPv6 address")
            }
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw fail("'\(hostPart)' is not an IPv6 address")
            }
        } else {
            let colons = rest.filter { $0 == ":" }.count
            if colons > 1 { throw fail("an IPv6 address must be written in brackets, e.g. mqtt://[::1]:1883") }
            if let colon = rest.firstIndex(of: ":") {
                hostPart = rest[..<colon]
                portPart = rest[rest.index(after: colon)...]
            } else {
                hostPart = rest
                portPart = nil
            }
            guard !hostPart.isEmpty else { throw fail("missing host") }
            let allowed = hostPart.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") }
            guard allowed else { throw fail("'\(hostPart)' is not a valid host name") }
        }
        host = String(hostPart)

        if let portPart {
            guard !portPart.isEmpty else { throw fail("missing port after ':'") }
            guard portPart.allSatisfy({ $0.isASCII && $0.isNumber }), portPart.count <= 6, let value = Int(portPart) else {
                throw fail("port '\(portPart)' is not a number")
            }
            guard (1...65535).contains(value) else { throw fail("port \(value) is out of range 1…65535") }
            port = value
        } else {
            port = useTLS ? Self.defaultTLSPort : Self.defaultPort
        }
    }

    /// `mqtt://host:port` (IPv6 in brackets): the canonical form, without credentials.
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(useTLS ? "mqtts" : "mqtt")://\(shownHost):\(port)"
    }

    /// The `://` after the scheme: a URL's first colon, when `//` follows it. (Not
    /// `firstRange(of:)`, whose string searching would be the agent's only use of
    /// _StringProcessing: most of a megabyte of code mapped at every start.)
    static func schemeSeparator(in url: String) -> Range<String.Index>? {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        return colon..<url.index(colon, offsetBy: 3)
    }

    /// The URL with any `user:password@` part replaced, so an error message never shows a password.
    static func redacted(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let start = schemeSeparator(in: url)?.upperBound ?? url.startIndex
        guard start <= at else { return url }
        return String(url[..<start]) + "***" + String(url[at...])
    }
}
