#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import DeviceLink
import Testing

/// `openTransport(port:)`: which transport a `device.port` value opens, and its errors.
@Suite struct OpenTransportTests {
    @Test func aSymlinkToAPseudoTerminalOpensAsATerminal() throws {
        let directory = try TemporaryDirectory()
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let link = directory.path + "/dwm3001c"
        try pty.link(at: link)

        let transport = try openTransport(port: link)
        defer { transport.close() }
        #expect(transport is TerminalTransport)
        #expect(transport.description == "pty \(pty.slavePath)")
        try pty.write([0x60, 0x01, 0x00, 0x01, 0x01])
        #expect(try readExactly(5, from: transport) == [0x60, 0x01, 0x00, 0x01, 0x01])
        try transport.write([0x20, 0x00, 0x00, 0x01, 0x00])
        #expect(try readExactly(5, from: pty) == [0x20, 0x00, 0x00, 0x01, 0x00])
    }

    @Test func aNonexistentPathIsNotFoundWithAHint() {
        let path = "/dev/ttyACM-devicelink-test-absent"
        guard case .notFound(let message)? = transportError({ try openTransport(port: path) }) else {
            Issue.record("expected .notFound")
            return
        }
        #expect(message.hasPrefix(path))
        #expect(message.contains("no such device"))
        #expect(message.contains("uwb2mqtt ports"))
    }

    @Test func aDanglingLinkSaysItsTargetIsGone() throws {
        let directory = try TemporaryDirectory()
        let link = directory.path + "/uwb-gone"
        #expect(symlink("/dev/ttyACM-devicelink-test-absent", link) == 0)
        guard case .notFound(let message)? = transportError({ try openTransport(port: link) }) else {
            Issue.record("expected .notFound")
            return
        }
        #expect(message.contains("link points to a device that does not exist"))
    }

    @Test func aDeviceThatIsNotASerialPortIsNotFound() {
        // /dev/null is a character device with no /sys/class/tty entry: libserialport refuses it.
        guard case .notFound(let message)? = transportError({ try openTransport(port: "/dev/null") }) else {
            Issue.record("expected .notFound")
            return
        }
        #expect(message.contains("not a serial port"))
    }

    @Test(arguments: ["auto", "", "  ", "udp://host:4000"])
    func addressesTheFactoryDoesNotOpen(port: String) {
        guard case .invalidAddress(let message)? = transportError({ try openTransport(port: port) }) else {
            Issue.record("\(port): expected .invalidAddress")
            return
        }
        #expect(!message.isEmpty)
    }
}
