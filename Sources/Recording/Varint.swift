/// LEB128 unsigned varints and ZigZag signed integers, as Protocol Buffers use them.
///
/// Record lengths and receive times are small numbers most of the time (a 60-byte packet, a time
/// a few minutes after the file started); a varint spends one byte per 7 bits, so a record's framing
/// costs 8–11 bytes instead of 16.
enum Varint {
    /// The longest varint a recording may hold (a full 64-bit value).
    static let maximumLength = 10

    static func append(_ value: UInt64, to out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    /// Reads a varint at `offset`; nil when it runs past `end` or beyond ``maximumLength`` bytes
    /// (damage, not a number).
    static func read(_ bytes: [UInt8], at offset: inout Int, end: Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var index = offset
        while index < end, index - offset < maximumLength {
            let byte = bytes[index]
            index += 1
            if shift == 63, byte > 1 { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                offset = index
                return value
            }
            shift += 7
        }
        return nil
    }

    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }
}
