/// A little-endian cursor over a message payload that throws instead of reading past the end.
///
/// UCI is little-endian throughout (uci.md, intro). Each read names its field so that a
/// truncated packet is reported as "truncated at distance", not as an index out of range.
struct ByteReader {
    let bytes: [UInt8]
    let message: StaticString
    private(set) var offset: Int

    init(_ bytes: [UInt8], message: StaticString, offset: Int = 0) {
        self.bytes = bytes
        self.message = message
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }
    var isAtEnd: Bool { offset >= bytes.count }

    @inline(__always)
    private func need(_ count: Int, _ field: StaticString) throws(UCIDecodingError) {
        if count > bytes.count - offset {
            throw .truncated(message: "\(message)", field: "\(field)", offset: offset, needed: count,
                             available: bytes.count - offset)
        }
    }

    @inline(__always)
    mutating func u8(_ field: StaticString) throws(UCIDecodingError) -> UInt8 {
        try need(1, field)
        defer { offset += 1 }
        return bytes[offset]
    }

    @inline(__always)
    mutating func u16(_ field: StaticString) throws(UCIDecodingError) -> UInt16 {
        try need(2, field)
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    @inline(__always)
    mutating func i16(_ field: StaticString) throws(UCIDecodingError) -> Int16 {
        Int16(bitPattern: try u16(field))
    }

    @inline(__always)
    mutating func u32(_ field: StaticString) throws(UCIDecodingError) -> UInt32 {
        try need(4, field)
        defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
            | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    /// An unsigned little-endian integer of `count` bytes (1…8), e.g. a 5-byte timestamp.
    mutating func uint(_ count: Int, _ field: StaticString) throws(UCIDecodingError) -> UInt64 {
        try need(count, field)
        var value: UInt64 = 0
        for index in 0..<count { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        offset += count
        return value
    }

    mutating func bytes(_ count: Int, _ field: StaticString) throws(UCIDecodingError) -> [UInt8] {
        try need(count, field)
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func skip(_ count: Int, _ field: StaticString) throws(UCIDecodingError) {
        try need(count, field)
        offset += count
    }

    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    /// A count field followed by `count` entries of at least `minimumEntrySize` bytes each:
    /// rejects counts the remaining payload cannot hold before any allocation is sized by them.
    mutating func count(_ field: StaticString, minimumEntrySize: Int) throws(UCIDecodingError) -> Int {
        let count = Int(try u8(field))
        if count * minimumEntrySize > remaining {
            throw .countBeyondPayload(message: "\(message)", field: "\(field)", count: count, available: remaining)
        }
        return count
    }

    /// Fixed-layout payloads end exactly: extra bytes mean the layout was misread.
    func expectEnd() throws(UCIDecodingError) {
        if remaining > 0 { throw .trailingBytes(message: "\(message)", count: remaining) }
    }
}

/// Little-endian appends used by the encoders.
extension Array where Element == UInt8 {
    @inline(__always) mutating func append16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value)); append(UInt8(truncatingIfNeeded: value >> 8))
    }
    @inline(__always) mutating func append32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
    mutating func appendLE(_ value: UInt64, count: Int) {
        for index in 0..<count { append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }
}
