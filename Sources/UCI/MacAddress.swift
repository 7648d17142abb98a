/// A UWB MAC address: short (2 bytes, the only mode QM33 supports) or extended (8 bytes).
///
/// Written as Qorvo's tools number it: the little-endian value in hex, `0x` and 4 digits for a
/// short address, 16 for an extended one (wire `01 00` is `0x0001`, `aa 01` is `0x01AA`). The
/// config's `address` fields use the same notation.
public enum MacAddress: Hashable, Sendable, CustomStringConvertible {
    case short(UInt16)
    case extended(UInt64)

    public var description: String {
        switch self {
        case let .short(value): "0x" + hexDigits(UInt64(value), count: 4)
        case let .extended(value): "0x" + hexDigits(value, count: 16)
        }
    }

    /// One word to the hasher, not the case and then the value: the agent looks addresses up a
    /// few times per measurement. A short address and the extended one with the top bit set
    /// and the same low bits hash alike; only their equality tells them apart, as it should.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case let .short(value): hasher.combine(UInt64(value) | 1 << 63)
        case let .extended(value): hasher.combine(value)
        }
    }

    /// Wire size: 2 or 8 bytes.
    public var size: Int {
        switch self { case .short: 2; case .extended: 8 }
    }

    func encode(into bytes: inout [UInt8]) {
        switch self {
        case let .short(value): bytes.append16(value)
        case let .extended(value): bytes.appendLE(value, count: 8)
        }
    }

    static func read(_ reader: inout ByteReader, mode: MacAddressingMode, _ field: StaticString) throws(UCIDecodingError) -> MacAddress {
        switch mode {
        case .short: .short(try reader.u16(field))
        case .extended: .extended(try reader.uint(8, field))
        }
    }
}

/// The MAC addressing mode indicator of a ranging notification (byte 15).
public enum MacAddressingMode: UInt8, Hashable, Sendable, CustomStringConvertible {
    case short = 0
    case extended = 1

    public var addressSize: Int { self == .short ? 2 : 8 }
    public var description: String { self == .short ? "SHORT" : "EXTENDED" }
}

func hexDigits(_ value: UInt64, count: Int) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    var out = [UInt8](repeating: UInt8(ascii: "0"), count: count)
    var v = value
    for index in stride(from: count - 1, through: 0, by: -1) {
        out[index] = digits[Int(v & 0xF)]
        v >>= 4
    }
    return String(decoding: out, as: UTF8.self)
}
