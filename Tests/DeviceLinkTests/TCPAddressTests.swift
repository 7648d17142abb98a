import DeviceLink
import Testing

/// Parsing of `device.port: tcp://host:port`.
@Suite struct TCPAddressTests {
    @Test(arguments: [
        ("tcp://127.0.0.1:4000", "127.0.0.1", UInt16(4000)),
        ("tcp://gateway.local:1", "gateway.local", UInt16(1)),
        ("TCP://Gateway:65535", "Gateway", UInt16(65_535)),
        ("tcp://[::1]:5000", "::1", UInt16(5000)),
    ])
    func parsesValidAddresses(text: String, host: String, port: UInt16) throws {
        let address = try TCPAddress(parsing: text)
        #expect(address.host == host)
        #expect(address.port == port)
    }

    @Test func describesIPv6InBrackets() {
        #expect(TCPAddress(host: "::1", port: 7).description == "tcp://[::1]:7")
        #expect(TCPAddress(host: "10.0.0.2", port: 7).description == "tcp://10.0.0.2:7")
    }

    @Test(arguments: [
        ("tcp://", "missing host and port"),
        ("tcp://host", "missing :port"),
        ("tcp://:4000", "missing host"),
        ("tcp://host:", "missing port"),
        ("tcp://host:0", "1 to 65535"),
        ("tcp://host:65536", "1 to 65535"),
        ("tcp://host:40a0", "1 to 65535"),
        ("tcp://host:-1", "1 to 65535"),
        ("tcp://host:4000/dev", "unexpected '/'"),
        ("tcp://user@host:4000", "unexpected '@'"),
        ("tcp://::1:4000", "brackets"),
        ("tcp://[::1:4000", "closing ']'"),
        ("tcp://[::1]4000", "missing :port"),
    ])
    func rejectsMalformedAddresses(text: String, expected: String) {
        let error = transportError { try TCPAddress(parsing: text) }
        guard case .invalidAddress(let message)? = error else {
            Issue.record("\(text): expected .invalidAddress, got \(String(describing: error))")
            return
        }
        #expect(message.contains(expected), "\(message)")
        #expect(message.hasPrefix(text))
    }

    @Test func theFactoryRejectsMalformedTCPAddressesToo() {
        guard case .invalidAddress? = transportError({ try openTransport(port: "tcp://host") }) else {
            Issue.record("expected .invalidAddress")
            return
        }
        guard case .invalidAddress? = transportError({ try openTransport(port: "tcp:host:4000") }) else {
            Issue.record("expected .invalidAddress")
            return
        }
    }
}
