import Vocabulary

/// One record of a journal segment (see `Spool` for the layout):
///
///     magic "UWBJ"(4)  body_length(4)  body  crc32(4)
///     body = sequence(8) qos(1) flags(1: bit 0 retain) topic_length(2) topic payload
///
/// little-endian; the CRC covers `body_length` and `body`. The magic is what recovery looks for
/// to find the next record after a damaged one; the sequence number tells how many were lost.
enum JournalRecord {
    static let magic: [UInt8] = Array("UWBJ".utf8)
    static let headerSize = 8
    static let fixedBodySize = 12
    static let overhead = headerSize + fixedBodySize + 4
    /// The longest topic the 16-bit length field (and MQTT) can carry.
    static let maximumTopicBytes = 65535
    /// The longest body a record may declare: the longest topic and the longest MQTT payload.
    static let maximumBodySize = fixedBodySize + maximumTopicBytes + 268_435_455

    /// Appends the record of `message` to `out`.
    static func encode(_ message: SpooledMessage, into out: inout [UInt8]) {
        let start = out.count
        let topicBytes = message.topic.utf8.count
        out += magic
        appendLE(UInt64(fixedBodySize + topicBytes + message.payload.count), bytes: 4, to: &out)
        appendLE(message.sequence, bytes: 8, to: &out)
        out.append(UInt8(truncatingIfNeeded: message.qos))
        out.append(message.retain ? 1 : 0)
        appendLE(UInt64(topicBytes), bytes: 2, to: &out)
        out += message.topic.utf8
        out += message.payload
        appendLE(UInt64(CRC32.checksum(out, (start + 4)..<out.count)), bytes: 4, to: &out)
    }

    enum Decoded {
        case record(SpooledMessage, size: Int)
        /// The bytes end inside the record: a write cut short, if nothing valid follows.
        case incomplete
        case invalid(String)
    }

    /// The record at `offset` of `bytes`, whose first `available` bytes are data.
    static func decode(_ bytes: [UInt8], at offset: Int, available: Int) -> Decoded {
        guard available - offset >= headerSize else { return .incomplete }
        guard bytes[offset] == magic[0], bytes[offset + 1] == magic[1], bytes[offset + 2] == magic[2], bytes[offset + 3] == magic[3] else {
            return .invalid("no record marker")
        }
        let length = Int(readLE(bytes, offset + 4, 4))
        guard length >= fixedBodySize, length <= maximumBodySize else { return .invalid("impossible record length \(length)") }
        let size = headerSize + length + 4
        guard available - offset >= size else { return .incomplete }
        let body = offset + headerSize
        guard readLE(bytes, body + length, 4) == UInt64(CRC32.checksum(bytes, (offset + 4)..<(body + length))) else {
            return .invalid("checksum mismatch")
        }
        let topicLength = Int(readLE(bytes, body + 10, 2))
        guard fixedBodySize + topicLength <= length else { return .invalid("topic longer than the record") }
        let topicStart = body + fixedBodySize
        var message = SpooledMessage(topic: String(decoding: bytes[topicStart..<(topicStart + topicLength)], as: UTF8.self),
                                     payload: Array(bytes[(topicStart + topicLength)..<(body + length)]),
                                     qos: Int(bytes[body + 8]), retain: bytes[body + 9] & 1 != 0)
        message.sequence = readLE(bytes, body, 8)
        return .record(message, size: size)
    }

    /// The bytes a record needs to be read whole, once its header is in `bytes` at `offset`.
    static func declaredSize(_ bytes: [UInt8], at offset: Int) -> Int {
        headerSize + Int(readLE(bytes, offset + 4, 4)) + 4
    }

    static func appendLE(_ value: UInt64, bytes count: Int, to out: inout [UInt8]) {
        for index in 0..<count { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    static func readLE(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<count { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        return value
    }
}
