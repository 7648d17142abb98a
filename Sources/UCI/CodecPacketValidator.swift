extension PacketValidator {
    /// The typed decoders of this module as a validator, the reassembler's default.
    ///
    /// A whole packet is `.valid` when `UCIMessage(decoding:)` gives a known message, `.invalid`
    /// when it throws, `.unknown` for an unknown GID/OID and for a SESSION_INFO_NTF whose
    /// measurement type has no public layout or that carries vendor data after its measurements
    /// (the decoder keeps those bytes unchecked, so they vouch for nothing). A prefix is judged by what has arrived: the declared length and the
    /// fixed fields of a SESSION_INFO_NTF, the opcode of anything else.
    ///
    /// SESSION_INFO_NTF with TWR measurements, the bulk of a ranging stream, is judged by its
    /// lengths alone (the same checks the decoder makes, without building the measurements), so
    /// validating every packet costs the clean stream next to nothing.
    public static let codec = PacketValidator.codecJudge
}

/// The judgement behind `PacketValidator.codec`.
enum CodecVerdict {
    static func verdict(_ header: PacketHeader, _ payload: ArraySlice<UInt8>) -> PacketValidator.Verdict {
        let mt = header.messageType
        guard mt == .command || mt == .response || mt == .notification else { return .unknown }
        if mt == .notification && header.gid == GroupID.sessionControl && header.oid == 0 {
            return sessionInfo(declaredLength: header.payloadLength, payload)
        }
        guard isKnown(mt, gid: header.gid, oid: header.oid) else { return .unknown }
        // A prefix of a known message: its layout is checked once it is whole, but a message of
        // a fixed small layout can never be longer than a packet (the start of a segmented one).
        guard payload.count >= header.payloadLength else {
            return header.payloadLength > PacketHeader.maximumControlPayload && fitsOnePacket(mt, gid: header.gid, oid: header.oid)
                ? .invalid : .valid
        }
        do {
            _ = try UCIMessage(decoding: RawMessage(messageType: mt, gid: header.gid, oid: header.oid, payload: Array(payload)))
            return .valid
        } catch {
            return .invalid
        }
    }

    /// SESSION_INFO_NTF (uci.md §5): the 24 fixed bytes, a valid MAC addressing mode, and for TWR
    /// `count` measurements of 31 bytes that fit the declared length; `SessionInfo(decoding:)`
    /// throws exactly when these checks fail (`.invalid`). Bytes after the measurements are
    /// optional vendor data to the decoder, but they are also what a false header reaching over
    /// the next packet looks like, so a notification with any is not vouched for (`.unknown`);
    /// QM33 firmware sends none (uci.md §7 V14–V17).
    static func sessionInfo(declaredLength: Int, _ payload: ArraySlice<UInt8>) -> PacketValidator.Verdict {
        // The fixed fields up to the measurement count (which only the types below have).
        guard declaredLength >= SessionInfo.headerSize - 1 else { return .invalid }
        let base = payload.startIndex
        let available = payload.count
        if available > 15, payload[base + 15] > MacAddressingMode.extended.rawValue { return .invalid }
        guard available > 13 else { return .valid }
        switch payload[base + 13] {
        case RangingMeasurementType.twoWay.rawValue:
            guard declaredLength >= SessionInfo.headerSize else { return .invalid }
            guard available >= SessionInfo.headerSize else { return .valid }
            let measured = SessionInfo.headerSize + Int(payload[base + 24]) * TwoWayRangingMeasurement.size(.short)
            if measured > declaredLength { return .invalid }
            // Whole: vendor data (or another packet) after the measurements is not vouched for.
            return measured == declaredLength || available < declaredLength ? .valid : .unknown
        case RangingMeasurementType.oneWayAoA.rawValue, RangingMeasurementType.downlinkTDoA.rawValue:
            guard declaredLength >= SessionInfo.headerSize else { return .invalid }
            guard available >= declaredLength else { return .valid }
            do {
                return try SessionInfo(decoding: Array(payload)).vendorData.isEmpty ? .valid : .unknown
            } catch {
                return .invalid
            }
        default:
            // UL-TDoA and unknown types: the decoder keeps the bytes, so they prove nothing.
            return .unknown
        }
    }

    /// Known messages whose layout is a few fixed fields (a status, a handle, a state, a count):
    /// `UCIMessage(decoding:)` throws on any payload longer than 255 bytes, so no segmented
    /// message has one of these opcodes. A false header with PBF set and one of them is then not
    /// taken for the start of a long message that would swallow the packets after it.
    static func fitsOnePacket(_ mt: MessageType, gid: UInt8, oid: UInt8) -> Bool {
        switch (mt, gid, oid) {
        case (.response, 0, 0x00), (.response, 0, 0x08), (.response, 1, 0x00), (.response, 1, 0x01),
             (.response, 1, 0x05), (.response, 1, 0x06), (.response, 2, 0x00), (.response, 2, 0x01),
             (.response, 2, 0x03):
            true
        case (.notification, 0, 0x01), (.notification, 0, 0x07), (.notification, 1, 0x02):
            true
        case (.command, 0, 0x00), (.command, 0, 0x02), (.command, 0, 0x03), (.command, 0, 0x08),
             (.command, 1, 0x00), (.command, 1, 0x01), (.command, 1, 0x05), (.command, 1, 0x06),
             (.command, 2, 0x00), (.command, 2, 0x01), (.command, 2, 0x03):
            true
        default:
            false
        }
    }

    /// Whether the codec decodes this opcode into a typed case (not `unknown`).
    @inline(__always)
    static func isKnown(_ mt: MessageType, gid: UInt8, oid: UInt8) -> Bool {
        let row: Int = switch mt {
        case .command: 0
        case .response: 1
        default: 2
        }
        return knownOpcodes[row << 10 | Int(gid & 0x0F) << 6 | Int(oid & 0x3F)]
    }

    /// Commands, responses and notifications by GID/OID: true where the decoder has a typed
    /// case. Derived from the decoders themselves (an empty payload either throws or decodes to
    /// a typed case for a known opcode, and decodes to `unknown` for any other), so the table
    /// cannot drift from them.
    static let knownOpcodes: [Bool] = {
        var table = [Bool](repeating: false, count: 3 << 10)
        for (row, mt) in [MessageType.command, .response, .notification].enumerated() {
            for gid in 0..<16 {
                for oid in 0..<64 {
                    let raw = RawMessage(messageType: mt, gid: UInt8(gid), oid: UInt8(oid))
                    let unknown: Bool = switch try? UCIMessage(decoding: raw) {
                    case .command(.unknown)?, .response(.unknown)?, .notification(.unknown)?: true
                    default: false
                    }
                    table[row << 10 | gid << 6 | oid] = !unknown
                }
            }
        }
        return table
    }()
}
