/// Why the connection ended.
public enum MQTTDisconnectReason: Sendable, Equatable, CustomStringConvertible {
    /// `disconnect()` was called: a clean DISCONNECT, no will.
    case requested
    /// The broker refused or dropped the connection, or it could not be made. The client keeps
    /// retrying with back-off until `disconnect()`.
    case failed(MQTTError)

    public var description: String {
        switch self {
        case .requested: return "disconnected on request"
        case .failed(let error): return error.description
        }
    }
}
