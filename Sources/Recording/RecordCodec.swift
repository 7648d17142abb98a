import Vocabulary

/// Encodes one record and decodes the record at an offset (RecordingFormat, "record").
enum RecordCodec {
    /// The record's bytes for `packet` received at `receiveTime` in a file started at `startTime`.
    static func encode(_ packet: [UInt8], receiveTime: Int64, startTime: Int64, flags: RecordFlags) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(packet.count + 20)
        out.append(RecordingFormat.recordMarker)
        out.append(flags.rawValue)
        Varint.append(UInt64(packet.count), to: &out)
        // Wrapping subtraction: two valid Int64 times never overflow in practice, and a wrap would
        // come back out of the reader's wrapping addition unchanged.
        Varint.append(Varint.zigzag(receiveTime &- startTime), to: &out)
        out += packet
        out.appendLittleEndian(CRC32.checksum(out))
        return out
    }

    /// What is at an offset.
    enum Outcome {
        /// An intact record, and the offset just after it.
        case record(RecordedPacket, next: Int)
        /// The framing is plausible but the record runs past the end of the data: a torn last write.
        case truncated
        /// Not an intact record: wrong marker, impossible length, or CRC mismatch.
        case invalid(String)
    }

    static func decode(_ bytes: [UInt8], at offset: Int, end: Int, startTime: Int64) -> Outcome {
        guard offset < end else { return .truncated }
        guard bytes[offset] == RecordingFormat.recordMarker else {
            return .invalid(String(format2: bytes[offset]))
        }
        var cursor = offset + 2
        guard cursor <= end else { return .truncated }
        guard let length = Varint.read(bytes, at: &cursor, end: end) else {
            return end - cursor < Varint.maximumLength ? .truncated : .invalid("unreadable length")
        }
        guard length >= 1, length <= UInt64(RecordingFormat.maximumPacketLength) else {
            return .invalid("impossible packet length \(length)")
        }
        guard let time = Varint.read(bytes, at: &cursor, end: end) else {
            return end - cursor < Varint.maximumLength ? .truncated : .invalid("unreadable time")
        }
        let packetEnd = cursor + Int(length)
        guard packetEnd + 4 <= end else { return .truncated }
        let stored = bytes.littleEndian(UInt32.self, at: packetEnd)
        guard CRC32.checksum(bytes, offset..<packetEnd) == stored else { return .invalid("checksum mismatch") }
        let packet = RecordedPacket(receiveTime: startTime &+ Varint.unzigzag(time), bytes: Array(bytes[cursor..<packetEnd]),
                                    flags: RecordFlags(rawValue: bytes[offset + 1]), offset: offset)
        return .record(packet, next: packetEnd + 4)
    }
}

private extension String {
    init(format2 byte: UInt8) {
        let hex = String(byte, radix: 16)
        self = "no record marker (found 0x\(hex.count == 1 ? "0" + hex : hex))"
    }
}
