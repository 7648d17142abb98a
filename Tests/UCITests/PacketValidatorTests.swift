import Testing
import UCI

/// `PacketValidator.codec` agrees with the decoders it stands for, and judges a prefix no more
/// strictly than the whole (else the reassembler's decisions would depend on chunking).
@Suite struct PacketValidatorTests {
    static func header(_ raw: RawMessage, length: Int? = nil) -> PacketHeader {
        PacketHeader(messageType: raw.messageType, gid: raw.gid, oid: raw.oid, payloadLength: length ?? raw.payload.count)
    }

    static let sessionInfo = RawMessage(messageType: .notification, gid: 2, oid: 0, payload: Array(Vectors.v14[4...]))

    @Test func sessionInfoIsJudgedByItsLengths() {
        let v = PacketValidator.codec
        let p = Self.sessionInfo.payload
        #expect(v.verdict(Self.header(Self.sessionInfo), payload: p[...]) == .valid)
        // Vendor data decodes, but a false header reaching over the next packet looks the same.
        #expect(v.verdict(Self.header(Self.sessionInfo, length: p.count + 4), payload: (p + [1, 2, 3, 4])[...]) == .unknown)
        #expect(v.verdict(Self.header(Self.sessionInfo, length: p.count - 1), payload: p.dropLast()) == .invalid)
        #expect(v.verdict(Self.header(Self.sessionInfo, length: 24), payload: p.prefix(24)) == .invalid) // TWR needs its count
        #expect(v.verdict(Self.header(Self.sessionInfo, length: 23), payload: p.prefix(10)) == .invalid)
        // A prefix: the declared length and the fixed fields that have arrived.
        #expect(v.verdict(Self.header(Self.sessionInfo), payload: p.prefix(10)) == .valid)
        // Room for more than the measurements: undecided until whole (it may be the start of a
        // segmented message), so still `.valid`.
        #expect(v.verdict(Self.header(Self.sessionInfo, length: 100), payload: p.prefix(30)) == .valid)
        #expect(v.verdict(Self.header(Self.sessionInfo, length: 50), payload: p.prefix(30)) == .invalid)
        var badMode = p
        badMode[15] = 7
        #expect(v.verdict(Self.header(Self.sessionInfo), payload: badMode.prefix(16)) == .invalid)
    }

    @Test func opcodesTheCodecDoesNotKnowAreUnknown() {
        let v = PacketValidator.codec
        #expect(v.verdict(PacketHeader(messageType: .notification, gid: 0xA, oid: 5, payloadLength: 2), payload: [1, 2]) == .unknown)
        #expect(v.verdict(PacketHeader(messageType: .data, gid: 1, oid: 0, payloadLength: 2), payload: [1, 2]) == .unknown)
        // Known: CORE_DEVICE_STATUS_NTF is exactly one byte.
        let status = PacketHeader(messageType: .notification, gid: 0, oid: 1, payloadLength: 1)
        #expect(v.verdict(status, payload: [0x01]) == .valid)
        #expect(v.verdict(PacketHeader(messageType: .notification, gid: 0, oid: 1, payloadLength: 2), payload: [1, 2]) == .invalid)
        #expect(v.verdict(status, payload: []) == .valid)
    }

    /// Random packets of every opcode family: `.invalid` exactly when `UCIMessage(decoding:)`
    /// throws, `.valid` only when it decodes, and no prefix of a `.valid` packet is judged less.
    @Test func agreesWithTheDecoderOnRandomPackets() {
        var seed: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
            return seed
        }
        let v = PacketValidator.codec
        let templates: [[UInt8]] = [Array(Vectors.v14[4...]), Array(Vectors.v1Reply.dropFirst(4)), []]
        for _ in 0..<20_000 {
            let mt: MessageType = [.command, .response, .notification][Int(next() % 3)]
            let gid = UInt8(next() % 4), oid = UInt8(next() % 9)
            var payload = templates[Int(next() % 3)]
            let length = next() % 4 == 0 ? Int(next() % 70) : payload.count
            payload = Array((payload + (0..<70).map { _ in UInt8(truncatingIfNeeded: next()) }).prefix(length))
            for _ in 0..<Int(next() % 3) where !payload.isEmpty {
                payload[Int(next() % UInt64(payload.count))] = UInt8(truncatingIfNeeded: next())
            }
            let raw = RawMessage(messageType: mt, gid: gid, oid: oid, payload: payload)
            let header = Self.header(raw)
            let verdict = v.verdict(header, payload: payload[...])
            let decodes = (try? UCIMessage(decoding: raw)) != nil
            if (verdict == .invalid) == decodes || (verdict == .valid && !decodes) {
                Issue.record("\(raw.name) \(Hex.string(payload)): verdict \(verdict), decodes \(decodes)")
                return
            }
            if verdict == .valid {
                for cut in 0..<payload.count where v.verdict(header, payload: payload.prefix(cut)) != .valid {
                    Issue.record("\(raw.name) \(Hex.string(payload)): prefix of \(cut) bytes judged less than the whole")
                    return
                }
            }
        }
    }
}

extension PacketValidatorTests {
    /// The opcodes taken never to start a segmented message do throw on a longer payload.
    @Test func singlePacketOpcodesRejectLongPayloads() {
        for mt in [MessageType.command, .response, .notification] {
            for gid in UInt8(0)...2 {
                for oid in UInt8(0)...8 {
                    let long = PacketHeader(messageType: mt, gid: gid, oid: oid, payloadLength: 300)
                    guard PacketValidator.codec.verdict(long, payload: [0, 0, 0]) == .invalid else { continue }
                    for fill: UInt8 in [0x00, 0x01, 0xFF] {
                        let raw = RawMessage(messageType: mt, gid: gid, oid: oid, payload: Array(repeating: fill, count: 256))
                        #expect(throws: UCIDecodingError.self, "\(raw.name)") { try UCIMessage(decoding: raw) }
                    }
                }
            }
        }
    }
}
