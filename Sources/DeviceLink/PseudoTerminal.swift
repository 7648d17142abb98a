#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CPty
import Synchronization

/// A pseudo-terminal pair for the simulator and the tests: the master is the "device" end, the
/// slave path (`/dev/pts/N`) is what the agent opens as if it were the DWM3001C's serial port.
///
/// Closing the master hangs up the slave exactly as a USB unplug hangs up `/dev/ttyACM0` (the same
/// kernel `tty_vhangup` path), so unplug handling is tested with real kernel behaviour. A re-plug
/// is a new `PseudoTerminal` (with a new path; `link(at:)` keeps a fixed name pointing at it).
///
/// The master is itself a `ByteTransport`, so the simulator reads commands and writes responses
/// through the same bounded-wait funnel as the agent: what it writes arrives at the slave as if
/// sent by the device, and it reads what a client wrote to the slave.
public final class PseudoTerminal: DescriptorChannelTransport {
    /// The slave's device path, `/dev/pts/N`.
    public let slavePath: String
    public var description: String { "pty master for \(slavePath)" }
    let channel: DescriptorChannel
    /// A slave descriptor held open for the terminal's lifetime: without it the master sees a
    /// hangup (POLLHUP, EIO) whenever no client has the slave open, e.g. between agent restarts,
    /// and the raw settings could be lost. Also keeps the slave raw for each new client.
    private let heldSlave: Int32
    private let links = Mutex<[String]>([])

    public init(writeTimeout: Duration = .seconds(2)) throws(TransportError) {
        let master = cpty_posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw .io("cannot open a pseudo-terminal: \(errnoText(errno))") }
        var slave: Int32 = -1
        var name = ""
        do throws(TransportError) {
            guard cpty_grantpt(master) == 0 else { throw .io("grantpt failed: \(errnoText(errno))") }
            guard cpty_unlockpt(master) == 0 else { throw .io("unlockpt failed: \(errnoText(errno))") }
            var buffer = [CChar](repeating: 0, count: 128)
            let code = cpty_ptsname_r(master, &buffer, buffer.count)
            guard code == 0 else { throw .io("ptsname_r failed: \(errnoText(code))") }
            name = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            slave = open(name, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            guard slave >= 0 else { throw openError(path: name, errno: errno) }
            try configureRaw(fd: slave, speed: speed_t(B115200), port: name)
            let flags = fcntl(master, F_GETFL)
            guard flags >= 0, fcntl(master, F_SETFL, flags | O_NONBLOCK) == 0 else {
                throw .io("cannot make the pty master non-blocking: \(errnoText(errno))")
            }
        } catch {
            if slave >= 0 { _ = Glibc.close(slave) }
            _ = Glibc.close(master)
            throw error
        }
        slavePath = name
        heldSlave = slave
        let held = slave
        channel = try DescriptorChannel(fd: master, label: "pty master \(name)", kind: .terminal, writeTimeout: writeTimeout) { fd in
            // Master first: that is the hangup every slave client sees. Then our own slave.
            _ = Glibc.close(fd)
            _ = Glibc.close(held)
        }
    }

    /// The master's descriptor, or -1 after `close()`.
    public var masterFD: Int32 { channel.fileDescriptor }

    /// Closes the master: every client of the slave sees a hangup, like a USB unplug. Links made
    /// by `link(at:)` that still point at this slave are removed, as udev removes its links.
    public func close() {
        channel.close()
        let made = links.withLock { made in
            defer { made.removeAll() }
            return made
        }
        for path in made where currentTarget(of: path) == slavePath {
            _ = unlink(path)
        }
    }

    /// Makes `path` a symlink to the slave (the simulator's `--link`), replacing an existing
    /// symlink atomically. Refuses to replace anything that is not a symlink.
    public func link(at path: String) throws(TransportError) {
        var status = stat()
        if lstat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFLNK {
            throw .io("\(path): exists and is not a symbolic link; not replacing it")
        }
        let temporary = path + ".tmp-\(getpid())"
        _ = unlink(temporary)
        guard symlink(slavePath, temporary) == 0 else {
            let code = errno
            if code == EACCES || code == EPERM {
                throw .permissionDenied("\(path): cannot create link: \(errnoText(code))")
            }
            throw .io("\(path): cannot create link: \(errnoText(code))")
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            _ = unlink(temporary)
            throw .io("\(path): cannot create link: \(errnoText(code))")
        }
        links.withLock { $0.append(path) }
    }

    private func currentTarget(of path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
