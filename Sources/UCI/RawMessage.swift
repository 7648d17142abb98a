/// A whole UCI message, its segments joined: what the reassembler yields and the encoder splits.
///
/// It is the boundary between framing and meaning: `UCIMessage(decoding:)` gives it a type,
/// `UCIMessage.raw` turns a typed message back into one.
public struct RawMessage: Hashable, Sendable {
    public var messageType: MessageType
    /// GID for control messages, DPF for data messages.
    public var gid: UInt8
    public var oid: UInt8
    public var payload: [UInt8]

    public init(messageType: MessageType, gid: UInt8, oid: UInt8, payload: [UInt8] = []) {
        self.messageType = messageType
        self.gid = gid & 0x0F
        self.oid = messageType == .data ? 0 : oid & 0x3F
        self.payload = payload
    }

    /// The UCI name with its kind suffix (`SESSION_INFO_NTF`), or `UNKNOWN`.
    public var name: String { MessageName.name(messageType, gid: gid, oid: oid) ?? "UNKNOWN" }

    /// The message split into packets of at most `maximumSegmentPayload` bytes: same MT/GID/OID
    /// on every segment, PBF set on all but the last; an empty payload is one packet (uci.md §1.3).
    public func packets(maximumSegmentPayload: Int = PacketHeader.maximumControlPayload) -> [Packet] {
        let limit = max(1, maximumSegmentPayload)
        if payload.count <= limit {
            return [Packet(header: PacketHeader(messageType: messageType, gid: gid, oid: oid, payloadLength: payload.count),
                           payload: payload)]
        }
        var result: [Packet] = []
        var start = 0
        while start < payload.count {
            let end = min(start + limit, payload.count)
            let header = PacketHeader(messageType: messageType, moreSegmentsFollow: end < payload.count,
                                      gid: gid, oid: oid, payloadLength: end - start)
            result.append(Packet(header: header, payload: Array(payload[start..<end])))
            start = end
        }
        return result
    }

    /// The bytes to write to the device: every segment, back to back.
    public func encoded(maximumSegmentPayload: Int = PacketHeader.maximumControlPayload) -> [UInt8] {
        if payload.count <= maximumSegmentPayload {
            var out: [UInt8] = []
            out.reserveCapacity(PacketHeader.size + payload.count)
            PacketHeader(messageType: messageType, gid: gid, oid: oid, payloadLength: payload.count).encode(into: &out)
            out.append(contentsOf: payload)
            return out
        }
        return packets(maximumSegmentPayload: maximumSegmentPayload).flatMap(\.bytes)
    }
}
