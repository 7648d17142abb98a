/// The 4-byte header of every UCI packet (uci.md §1.1, §1.2).
///
/// Control packets (MT 1–3): `MT<<5 | PBF<<4 | GID`, `RFU<<6 | OID`, RFU, length.
/// Data and test packets (MT 0, 4, 5): `MT<<5 | PBF<<4 | DPF/GID`, OID/RFU, length (uint16 LE).
public struct PacketHeader: Hashable, Sendable {
    public static let size = 4
    /// The largest payload one control packet carries; longer messages are segmented with PBF.
    public static let maximumControlPayload = 255

    public var messageType: MessageType
    /// Packet boundary flag: true when more segments of the same message follow.
    public var moreSegmentsFollow: Bool
    /// GID for control packets, DPF for data packets.
    public var gid: UInt8
    /// OID (6 bits) for control packets; 0 for data packets.
    public var oid: UInt8
    public var payloadLength: Int

    public init(messageType: MessageType, moreSegmentsFollow: Bool = false, gid: UInt8, oid: UInt8, payloadLength: Int) {
        self.messageType = messageType
        self.moreSegmentsFollow = moreSegmentsFollow
        self.gid = gid & 0x0F
        self.oid = oid & 0x3F
        self.payloadLength = payloadLength
    }

    /// Decodes the first four bytes. The length is not checked against anything here.
    public init<C: Collection<UInt8>>(decoding bytes: C) throws(UCIDecodingError) where C.Index == Int {
        guard bytes.count >= PacketHeader.size else {
            throw .truncated(message: "packet", field: "header", offset: 0, needed: PacketHeader.size, available: bytes.count)
        }
        let start = bytes.startIndex
        let b0 = bytes[start], b1 = bytes[start + 1], b2 = bytes[start + 2], b3 = bytes[start + 3]
        guard let mt = MessageType(rawValue: b0 >> 5) else { throw .invalidMessageType(b0 >> 5) }
        messageType = mt
        moreSegmentsFollow = b0 & 0x10 != 0
        gid = b0 & 0x0F
        if mt == .data {
            oid = 0
            payloadLength = Int(b2) | Int(b3) << 8
        } else if mt.hasTwoByteLength {
            oid = b1 & 0x3F
            payloadLength = Int(b2) | Int(b3) << 8
        } else {
            oid = b1 & 0x3F
            payloadLength = Int(b3)
        }
    }

    public func encode(into bytes: inout [UInt8]) {
        bytes.append(messageType.rawValue << 5 | (moreSegmentsFollow ? 0x10 : 0) | gid & 0x0F)
        if messageType.hasTwoByteLength {
            bytes.append(messageType == .data ? 0 : oid & 0x3F)
            bytes.append16(UInt16(truncatingIfNeeded: payloadLength))
        } else {
            bytes.append(oid & 0x3F)
            bytes.append(0)
            bytes.append(UInt8(truncatingIfNeeded: payloadLength))
        }
    }
}

/// One UCI packet as it travels on the wire: a header and up to 255 (control) payload bytes.
public struct Packet: Hashable, Sendable {
    public var header: PacketHeader
    public var payload: [UInt8]

    public init(header: PacketHeader, payload: [UInt8]) {
        self.header = header
        self.payload = payload
    }

    /// Decodes exactly one packet: the header's length must match the bytes that follow it.
    public init(decoding bytes: [UInt8]) throws(UCIDecodingError) {
        header = try PacketHeader(decoding: bytes)
        let actual = bytes.count - PacketHeader.size
        guard actual == header.payloadLength else {
            throw .lengthMismatch(declared: header.payloadLength, actual: actual)
        }
        payload = Array(bytes[PacketHeader.size...])
    }

    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(PacketHeader.size + payload.count)
        var h = header
        h.payloadLength = payload.count
        h.encode(into: &out)
        out.append(contentsOf: payload)
        return out
    }
}
