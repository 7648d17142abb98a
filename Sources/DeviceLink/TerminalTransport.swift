#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A terminal device opened with plain POSIX termios: used for pseudo-terminals (the simulator,
/// `socat`-made links, tests), which libserialport 0.1.1 refuses to open (no sysfs entry, and its
/// unconditional TIOCMGET fails on a pty). Raw mode, 8N1, no flow control, `CLOCAL`.
public final class TerminalTransport: DescriptorChannelTransport {
    public let description: String
    /// The path as configured (may be a symlink).
    public let path: String
    /// The device node the path resolves to (`/dev/pts/3`).
    public let resolvedPath: String
    let channel: DescriptorChannel

    /// Opens `path` (following symlinks) as a raw terminal at `options.baudRate`.
    public init(path: String, options: TransportOptions = TransportOptions()) throws(TransportError) {
        let resolved = try resolveDevicePath(path)
        let speed = try terminalSpeed(options.baudRate, port: path)
        let fd = open(resolved, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw openError(path: path, errno: errno) }
        do throws(TransportError) {
            try configureRaw(fd: fd, speed: speed, port: path)
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
        self.path = path
        self.resolvedPath = resolved
        self.description = isPseudoTerminalSlave(resolved) ? "pty \(resolved)" : resolved
        channel = try DescriptorChannel(fd: fd, label: path, kind: .terminal, writeTimeout: options.writeTimeout) { fd in
            _ = Glibc.close(fd)
        }
    }
}

/// Puts a terminal in raw mode (no echo, no line editing, no CR/LF translation: UCI is binary),
/// 8 data bits, no parity, one stop bit, no flow control, receiver on, modem lines ignored.
func configureRaw(fd: Int32, speed: speed_t, port: String) throws(TransportError) {
    var settings = termios()
    guard tcgetattr(fd, &settings) == 0 else {
        let code = errno
        if code == ENOTTY { throw .invalidSetting("\(port): not a terminal device") }
        throw .io("\(port): cannot read terminal settings: \(errnoText(code))")
    }
    cfmakeraw(&settings)
    settings.c_cflag &= ~(tcflag_t(CSTOPB | PARENB | CSIZE) | tcflag_t(CRTSCTS))
    settings.c_cflag |= tcflag_t(CS8 | CLOCAL | CREAD)
    settings.c_iflag &= ~tcflag_t(IXON | IXOFF | IXANY)
    _ = cfsetispeed(&settings, speed)
    _ = cfsetospeed(&settings, speed)
    guard tcsetattr(fd, TCSANOW, &settings) == 0 else {
        throw .io("\(port): cannot set terminal to raw 8N1: \(errnoText(errno))")
    }
}

/// The termios speed constant for a baud rate; only the standard rates exist in termios.
func terminalSpeed(_ baudRate: Int, port: String) throws(TransportError) -> speed_t {
    let table: [Int: Int32] = [
        1200: B1200, 2400: B2400, 4800: B4800, 9600: B9600, 19_200: B19200, 38_400: B38400,
        57_600: B57600, 115_200: B115200, 230_400: B230400, 460_800: B460800, 500_000: B500000,
        576_000: B576000, 921_600: B921600, 1_000_000: B1000000, 1_500_000: B1500000,
        2_000_000: B2000000, 3_000_000: B3000000, 4_000_000: B4000000,
    ]
    guard let speed = table[baudRate] else {
        let known = table.keys.sorted().map(String.init).joined(separator: ", ")
        throw .invalidSetting("\(port): baud rate \(baudRate) is not a standard terminal speed (one of \(known))")
    }
    return speed_t(speed)
}
