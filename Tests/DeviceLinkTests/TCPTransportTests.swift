import DeviceLink
import Testing

/// `TCPTransport` against a real listener on 127.0.0.1.
@Suite struct TCPTransportTests {
    @Test func exchangesBytesAndSeesThePeerClosing() throws {
        let listener = try LoopbackListener()
        let transport = try openTransport(port: "tcp://127.0.0.1:\(listener.port)")
        defer { transport.close() }
        try listener.accept()
        #expect(transport.description == "tcp://127.0.0.1:\(listener.port)")

        try transport.write([0x20, 0x02, 0x00, 0x00])
        #expect(try listener.receive(4) == [0x20, 0x02, 0x00, 0x00])

        let response: [UInt8] = [0x40, 0x02, 0x00, 0x06, 0x00, 0x00, 0x02, 0x00, 0x01, 0x01]
        try listener.send(response)
        #expect(try readExactly(response.count, from: transport) == response)

        listener.closeConnection()
        let (error, took) = elapsed { transportError { try transport.read(maximum: 16, timeout: .seconds(5)) } }
        guard case .disconnected(let message)? = error else {
            Issue.record("expected .disconnected, got \(String(describing: error))")
            return
        }
        #expect(message.contains("peer closed"))
        #expect(took < .seconds(1))
    }

    @Test func writeAfterThePeerWentAwayIsDisconnectedNotSIGPIPE() throws {
        let listener = try LoopbackListener()
        let transport = try TCPTransport(url: "tcp://127.0.0.1:\(listener.port)")
        defer { transport.close() }
        try listener.accept()
        listener.closeConnection()
        // The first write may still be accepted locally; the peer's RST makes a later one fail.
        var error: TransportError?
        for _ in 0..<100 where error == nil {
            error = transportError { try transport.write([1, 2, 3, 4]) }
            if error == nil { _ = transportError { try transport.read(maximum: 1, timeout: .milliseconds(20)) } }
        }
        guard case .disconnected? = error else {
            Issue.record("expected .disconnected, got \(String(describing: error))")
            return
        }
    }

    @Test func aClosedPortIsRefusedWithAClearMessage() throws {
        var port: UInt16 = 0
        do {
            let listener = try LoopbackListener()
            port = listener.port
        } // the listener is closed here: nothing listens on `port` any more
        let error = transportError { try openTransport(port: "tcp://127.0.0.1:\(port)", options: TransportOptions(connectTimeout: .seconds(2))) }
        guard case .unreachable(let message)? = error else {
            Issue.record("expected .unreachable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("connection refused"))
        #expect(message.contains("tcp://127.0.0.1:\(port)"))
    }

    @Test func anUnknownHostIsNotFound() {
        let error = transportError { try TCPTransport(url: "tcp://no-such-host.invalid:4000") }
        switch error {
        case .notFound(let message)?, .unreachable(let message)?:
            #expect(message.contains("no-such-host.invalid"))
        default:
            Issue.record("expected .notFound or .unreachable, got \(String(describing: error))")
        }
    }
}
