#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import DeviceLink
import Testing

/// The simulator's and the tests' pseudo-terminal: master I/O, links, and close as unplug.
@Suite struct PseudoTerminalTests {
    @Test func exposesTheSlavePathAndMasterDescriptor() throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        #expect(pty.slavePath.hasPrefix("/dev/pts/"))
        #expect(pty.masterFD >= 0)
        #expect(isatty(pty.masterFD) == 1)
        pty.close()
        #expect(pty.masterFD == -1)
        pty.close() // idempotent
    }

    @Test func linkPointsAtTheSlaveIsReplacedAndIsRemovedOnClose() throws {
        let directory = try TemporaryDirectory()
        let link = directory.path + "/dwm3001c"
        let first = try PseudoTerminal()
        defer { first.close() }
        try first.link(at: link)
        #expect(target(of: link) == first.slavePath)

        // A re-plug: the new terminal takes the same name over, atomically.
        let second = try PseudoTerminal()
        defer { second.close() }
        try second.link(at: link)
        #expect(target(of: link) == second.slavePath)

        // Closing the old one leaves the link alone: it no longer points at it.
        first.close()
        #expect(target(of: link) == second.slavePath)
        second.close()
        #expect(target(of: link) == nil)
    }

    @Test func linkRefusesToReplaceARegularFile() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/config.yaml"
        let fd = open(file, O_CREAT | O_WRONLY, 0o600)
        #expect(fd >= 0)
        _ = close(fd)
        let pty = try PseudoTerminal()
        defer { pty.close() }
        guard case .io(let message)? = transportError({ try pty.link(at: file) }) else {
            Issue.record("expected .io")
            return
        }
        #expect(message.contains("not a symbolic link"))
    }

    @Test func aWriteTheDeviceSideNeverDrainsTimesOut() throws {
        let pty = try PseudoTerminal(writeTimeout: .milliseconds(200))
        defer { pty.close() }
        // Nobody reads the slave, so the terminal's input buffer fills and the master blocks.
        let (error, took) = elapsed { transportError { try pty.write([UInt8](repeating: 0x55, count: 1 << 20)) } }
        guard case .timedOut(let message)? = error else {
            Issue.record("expected .timedOut, got \(String(describing: error))")
            return
        }
        #expect(message.contains("not reading"))
        #expect(took < .seconds(3))
    }

    private func target(of path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
