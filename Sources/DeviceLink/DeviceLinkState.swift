/// What the device link is doing, as the `device` topic reports it (mqtt-api.md):
/// `absent`, `opening`, `initializing`, `ranging`, `idle`, or `error` with a message.
public enum DeviceLinkState: Hashable, Sendable, CustomStringConvertible {
    /// No device: not plugged in, or unplugged. The message says what was tried, if anything.
    case absent(String?)
    case opening
    case initializing
    case ranging
    /// Connected and configured, not ranging (stopped by request).
    case idle
    case error(String)

    /// The `state` value of the `device` payload.
    public var name: String {
        switch self {
        case .absent: "absent"
        case .opening: "opening"
        case .initializing: "initializing"
        case .ranging: "ranging"
        case .idle: "idle"
        case .error: "error"
        }
    }

    /// The `error` value of the `device` payload.
    public var message: String? {
        switch self {
        case let .absent(message): message
        case let .error(message): message
        default: nil
        }
    }

    public var description: String { message.map { "\(name): \($0)" } ?? name }
}
