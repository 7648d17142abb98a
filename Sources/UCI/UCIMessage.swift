/// A decoded UCI message of any kind: the typed form of a `RawMessage`.
///
/// `UCIMessage(decoding:)` never traps on untrusted bytes: a payload that does not fit its
/// layout throws `UCIDecodingError`; an unknown GID/OID decodes to an `unknown` case that keeps
/// the payload. `raw` and `encoded()` turn a message back into wire form.
public enum UCIMessage: Hashable, Sendable {
    case command(UCICommand)
    case response(UCIResponse)
    case notification(UCINotification)
    /// Data packets and Qorvo test packets (MT 0, 4, 5): not used by a ranging host, kept raw.
    case other(RawMessage)

    public init(decoding raw: RawMessage) throws(UCIDecodingError) {
        switch raw.messageType {
        case .command: self = .command(try UCICommand(decoding: raw))
        case .response: self = .response(try UCIResponse(decoding: raw))
        case .notification: self = .notification(try UCINotification(decoding: raw))
        case .data, .testCommand, .testResponse: self = .other(raw)
        }
    }

    public var raw: RawMessage {
        switch self {
        case let .command(c): c.raw
        case let .response(r): r.raw
        case let .notification(n): n.raw
        case let .other(raw): raw
        }
    }

    /// Wire bytes, segmented with PBF where the payload exceeds 255 bytes.
    public func encoded() -> [UInt8] { raw.encoded() }

    /// The UCI name with its kind suffix, `UNKNOWN` for an unknown GID/OID.
    public var name: String { raw.name }
}
