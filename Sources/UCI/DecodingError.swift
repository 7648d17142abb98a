/// Why bytes from the device (or a user) could not be decoded.
///
/// Every decoder in this module throws this instead of trapping: bytes from a serial line are
/// untrusted, and a bad packet must become a log line or an error object, never a crash.
public enum UCIDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before a field: `needed` bytes were required at `offset`, `available` remained.
    case truncated(message: String, field: String, offset: Int, needed: Int, available: Int)
    /// The packet header declares a payload length that the bytes do not have.
    case lengthMismatch(declared: Int, actual: Int)
    /// Bytes were left over after the last field of a fixed-layout payload.
    case trailingBytes(message: String, count: Int)
    /// A count field announces more entries than the payload can hold.
    case countBeyondPayload(message: String, field: String, count: Int, available: Int)
    /// A field holds a value its layout does not allow (e.g. a MAC addressing mode of 7).
    case invalidValue(message: String, field: String, value: Int)
    /// The first three bits of the header are a message type this codec does not know (6 or 7).
    case invalidMessageType(UInt8)
    /// Segments of one message (PBF) disagree on MT/GID/OID, or the last segment is missing.
    case segmentation(String)
    /// Text given as hex is not hex.
    case invalidHex(String)

    public var description: String {
        switch self {
        case let .truncated(message, field, offset, needed, available):
            return "\(message): truncated at \(field) (needs \(needed) byte\(needed == 1 ? "" : "s") at offset \(offset), \(available) left)"
        case let .lengthMismatch(declared, actual):
            return "length mismatch: header declares \(declared) payload bytes, packet has \(actual)"
        case let .trailingBytes(message, count):
            return "\(message): \(count) unexpected byte\(count == 1 ? "" : "s") after the last field"
        case let .countBeyondPayload(message, field, count, available):
            return "\(message): \(field) is \(count), more than the \(available) remaining payload bytes can hold"
        case let .invalidValue(message, field, value):
            return "\(message): invalid \(field) \(hexByte(UInt8(truncatingIfNeeded: value)))"
        case let .invalidMessageType(mt):
            return "invalid message type \(mt) in the header"
        case let .segmentation(what):
            return what
        case let .invalidHex(what):
            return "not hex: \(what)"
        }
    }
}

/// `0x1B`-style rendering of one byte, as the CLI and logs print unnamed codes.
@inlinable
public func hexByte(_ value: UInt8) -> String {
    let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
    return "0x" + String(digits[Int(value >> 4)]) + String(digits[Int(value & 0xF)])
}
