import Dispatch
import Foundation
import DeviceLink
import Testing

/// `TerminalTransport` on a real pseudo-terminal slave, with `PseudoTerminal`'s master as the device.
@Suite struct TerminalTransportTests {
    @Test func readsBytesWrittenToTheMasterOneAtATimeAndInBulk() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let transport = try TerminalTransport(path: pty.slavePath)
        defer { transport.close() }
        #expect(transport.description == "pty \(pty.slavePath)")

        try pty.write([0x40, 0x02, 0x00, 0x00])
        var oneByOne: [UInt8] = []
        for _ in 0..<4 { oneByOne += try readExactly(1, from: transport) }
        #expect(oneByOne == [0x40, 0x02, 0x00, 0x00])

        // Binary-clean: every byte value, including CR, LF, XON/XOFF and ^C, passes unchanged.
        let all = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try pty.write(all)
        #expect(try readExactly(all.count, from: transport) == all)
    }

    @Test func bytesWrittenToTheTransportArriveAtTheMaster() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let transport = try TerminalTransport(path: pty.slavePath)
        defer { transport.close() }
        let command: [UInt8] = [0x20, 0x02, 0x00, 0x00, 0x0D, 0x0A, 0x11, 0x13]
        try transport.write(command)
        #expect(try readExactly(command.count, from: pty) == command)
    }

    @Test func readWithNothingToReadReturnsEmptyAfterTheTimeout() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let transport = try TerminalTransport(path: pty.slavePath)
        defer { transport.close() }
        let (bytes, took) = try elapsed { try transport.read(maximum: 64, timeout: .milliseconds(150)) }
        #expect(bytes.isEmpty)
        #expect(took >= .milliseconds(140))
        #expect(took < .seconds(2), "a bounded read must not block much longer than its timeout")
        #expect(try transport.read(maximum: 0, timeout: .seconds(10)).isEmpty)
    }

    @Test func extremeArgumentsAreHandledNotTrapped() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let transport = try TerminalTransport(path: pty.slavePath)
        defer { transport.close() }
        let (negative, took) = try elapsed { try transport.read(maximum: 8, timeout: .seconds(-5)) }
        #expect(negative.isEmpty)
        #expect(took < .seconds(1))
        try pty.write([9, 8])
        // A huge maximum and a huge timeout: returns what arrived, as soon as it arrived.
        #expect(try transport.read(maximum: Int.max, timeout: .seconds(Int64.max)) == [9, 8])
        try transport.write([])
    }

    @Test func closingTheMasterIsSeenAsDisconnectedWithinASecond() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let transport = try TerminalTransport(path: pty.slavePath)
        defer { transport.close() }
        try pty.write([1, 2, 3])
        #expect(try readExactly(3, from: transport) == [1, 2, 3])

        pty.close()
        let (readError, took) = elapsed { transportError { try transport.read(maximum: 16, timeout: .seconds(5)) } }
        guard case .disconnected(let message)? = readError else {
            Issue.record("expected .disconnected, got \(String(describing: readError))")
            return
        }
        #expect(message.contains(pty.slavePath))
        #expect(took < .seconds(1))

        let (writeError, writeTook) = elapsed { transportError { try transport.write([0x20, 0x00, 0x00, 0x00]) } }
        guard case .disconnected? = writeError else {
            Issue.record("expected .disconnected, got \(String(describing: writeError))")
            return
        }
        #expect(writeTook < .seconds(1))
    }

    @Test func closeFromAnotherThreadWakesABlockedReader() async throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let transport = try TerminalTransport(path: pty.slavePath)
        defer { transport.close() }
        let started = ContinuousClock.now
        // The reader's own clock says when it returned: the test's resumption after the await may
        // wait for a thread of the concurrency pool, which tests running beside it can hold.
        let (result, returnedAt): (TransportError?, ContinuousClock.Instant) = await withCheckedContinuation { continuation in
            Thread {
                let error = transportError { try transport.read(maximum: 16, timeout: .seconds(30)) }
                continuation.resume(returning: (error, ContinuousClock.now))
            }.start()
            transport.close()
        }
        guard case .closed? = result else {
            Issue.record("expected .closed, got \(String(describing: result))")
            return
        }
        #expect(started.duration(to: returnedAt) < .seconds(5))
        #expect(transportError { try transport.write([1]) } == .closed("\(pty.slavePath): transport was closed"))
    }

    @Test func rejectsANonTerminalAndAnUnknownBaudRate() throws {
        guard case .invalidSetting(let message)? = transportError({ try TerminalTransport(path: "/dev/null") }) else {
            Issue.record("expected .invalidSetting for /dev/null")
            return
        }
        #expect(message.contains("not a terminal"))

        let pty = try PseudoTerminal()
        defer { pty.close() }
        let error = transportError { try TerminalTransport(path: pty.slavePath, options: TransportOptions(baudRate: 12_345)) }
        guard case .invalidSetting(let text)? = error else {
            Issue.record("expected .invalidSetting, got \(String(describing: error))")
            return
        }
        #expect(text.contains("12345"))
    }
}
