#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLibSerialPort

/// A real serial port (the DWM3001C's USB CDC-ACM `/dev/ttyACM*`, or a UART) opened through
/// libserialport: it knows the platform's port quirks, and the same library enumerates ports.
///
/// Only opening and configuration go through libserialport. Reads and writes use the port's
/// descriptor with `poll()`, because 0.1.1's blocking reads cannot tell a USB unplug from silence
/// (after a hangup `sp_blocking_read_next` spins the CPU and returns 0), whereas `poll()` reports
/// POLLHUP and `read()` returns 0 at once.
public final class SerialPortTransport: DescriptorChannelTransport {
    public let description: String
    /// The path as configured (may be a `/dev/serial/by-id/…` link).
    public let path: String
    /// The device node libserialport opened (`/dev/ttyACM0`).
    public let resolvedPath: String
    let channel: DescriptorChannel

    /// Opens `path` (following symlinks) at `options.baudRate`, 8N1, no flow control, and takes it
    /// exclusively (TIOCEXCL, which 0.1.1 does not set) so a second agent cannot split the bytes.
    public init(path: String, options: TransportOptions = TransportOptions()) throws(TransportError) {
        let resolved = try resolveDevicePath(path)
        guard options.baudRate > 0, options.baudRate <= Int(Int32.max) else {
            throw .invalidSetting("\(path): baud rate \(options.baudRate) is out of range")
        }
        var portPointer: OpaquePointer?
        let lookup = sp_get_port_by_name(resolved, &portPointer)
        guard lookup == SP_OK, let port = portPointer else {
            if lookup == SP_ERR_ARG {
                throw .notFound("\(path): \(resolved) is not a serial port the system knows (no /sys/class/tty entry); `uwb2mqtt ports` lists serial ports")
            }
            throw libserialportError(lookup, path: path, doing: "look up")
        }
        let handle = SerialPortHandle(port: port)
        let opened = sp_open(port, SP_MODE_READ_WRITE)
        guard opened == SP_OK else {
            let error = libserialportError(opened, path: path, doing: "open")
            sp_free_port(port)
            throw error
        }
        var fd: Int32 = -1
        do throws(TransportError) {
            try Self.configure(port, baudRate: Int32(options.baudRate), path: path)
            guard sp_get_port_handle(port, &fd) == SP_OK, fd >= 0 else {
                throw .io("\(path): libserialport gave no file descriptor")
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = ioctl(fd, UInt(TIOCEXCL))
        } catch {
            handle.closeAndFree()
            throw error
        }
        self.path = path
        self.resolvedPath = resolved
        self.description = path == resolved ? path : "\(path) (\(resolved))"
        channel = try DescriptorChannel(fd: fd, label: path, kind: .terminal, writeTimeout: options.writeTimeout) { _ in
            handle.closeAndFree()
        }
    }

    private static func configure(_ port: OpaquePointer, baudRate: Int32, path: String) throws(TransportError) {
        let steps: [(String, () -> sp_return)] = [
            ("set baud rate \(baudRate)", { sp_set_baudrate(port, baudRate) }),
            ("set 8 data bits", { sp_set_bits(port, 8) }),
            ("set no parity", { sp_set_parity(port, SP_PARITY_NONE) }),
            ("set 1 stop bit", { sp_set_stopbits(port, 1) }),
            ("set no flow control", { sp_set_flowcontrol(port, SP_FLOWCONTROL_NONE) }),
        ]
        for (what, step) in steps {
            let result = step()
            guard result == SP_OK else { throw libserialportError(result, path: path, doing: what) }
        }
    }
}

/// Owns an opened `struct sp_port`.
///
/// `@unchecked Sendable` because `OpaquePointer` is not Sendable; it is safe here because the
/// pointer is only used on the opening thread during `init`, and afterwards only by the
/// descriptor channel's release action, which runs exactly once, after every read and write ended.
private struct SerialPortHandle: @unchecked Sendable {
    let port: OpaquePointer

    func closeAndFree() {
        _ = sp_close(port)
        sp_free_port(port)
    }
}

/// Turns a libserialport failure into a `TransportError`. For `SP_ERR_FAIL` the OS error code is
/// valid and says what happened (EACCES, EBUSY, ENOENT…); for the other codes it is stale, so it
/// is not quoted.
func libserialportError(_ result: sp_return, path: String, doing operation: String) -> TransportError {
    switch result {
    case SP_ERR_FAIL:
        let code = sp_last_error_code()
        switch code {
        case ENOENT, ENODEV, ENXIO, EACCES, EPERM, EBUSY:
            return openError(path: path, errno: code)
        case EIO:
            return .disconnected("\(path): device disconnected during \(operation) (\(errnoText(code)))")
        default:
            let text: String
            if let message = sp_last_error_message() {
                text = String(cString: message)
                sp_free_error_message(message)
            } else {
                text = errnoText(code)
            }
            return .io("\(path): cannot \(operation): \(text)")
        }
    case SP_ERR_ARG:
        return .invalidSetting("\(path): libserialport rejected the request to \(operation)")
    case SP_ERR_MEM:
        return .io("\(path): out of memory during \(operation)")
    case SP_ERR_SUPP:
        return .invalidSetting("\(path): the port does not support the request to \(operation)")
    default:
        return .io("\(path): cannot \(operation): libserialport error \(result.rawValue)")
    }
}
