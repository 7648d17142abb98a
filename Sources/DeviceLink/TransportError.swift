/// Why a byte transport could not be opened, or stopped working.
///
/// The cases are what the caller acts on: the session treats `.disconnected` as "device gone,
/// re-discover with back-off", `.timedOut` as "device not draining its input", and the rest of the
/// open-time cases as a reason to log once and retry later (`run`) or exit 3 (`doctor`). Every
/// message is a complete sentence fragment naming the port, so it can be logged as is.
public enum TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The path or host does not exist (no such device node, dangling link, not a serial port).
    case notFound(String)
    /// The process may not open the device (usually: not in the `dialout` group).
    case permissionDenied(String)
    /// Another process holds the device open exclusively.
    case busy(String)
    /// A TCP peer refused or could not be reached.
    case unreachable(String)
    /// An operation did not complete within its deadline (TCP connect, a write the peer never drained).
    case timedOut(String)
    /// The device went away while open: tty hangup (unplug), EOF, EIO, or a reset TCP connection.
    case disconnected(String)
    /// This side closed the transport; further reads and writes are refused.
    case closed(String)
    /// The configured `device.port` string is not a usable address (`tcp://` malformed, `auto`, empty).
    case invalidAddress(String)
    /// A setting cannot be applied (for example a baud rate the terminal driver does not know).
    case invalidSetting(String)
    /// Any other operating-system error, with its text.
    case io(String)

    /// The message, without the case name: ready for a log line.
    public var message: String {
        switch self {
        case .notFound(let text), .permissionDenied(let text), .busy(let text), .unreachable(let text),
             .timedOut(let text), .disconnected(let text), .closed(let text), .invalidAddress(let text),
             .invalidSetting(let text), .io(let text):
            return text
        }
    }

    public var description: String { message }
}
