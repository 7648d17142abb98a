// libFuzzer entry point for the UCI codec: the reassembler (stream → messages) and the typed
// decoder (`UCIMessage(decoding:)`). Built with `swift build -c release --sanitize=fuzzer`;
// libFuzzer supplies `main`. Any invariant violation is a `fatalError` whose message names the
// invariant and carries the input in hex, so a crash file plus its log line is a full report.
import UCI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUCI(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    var check = Check(input: input)
    check.stream(side: "host", accepting: Reassembler.hostSide, chunkSalt: 0)
    check.stream(side: "device", accepting: Reassembler.deviceSide, chunkSalt: 1)
    check.wholeInputAsMessages()
    check.singlePacket()
    // Keep the "does it trap" work observable; the value itself means nothing.
    withExtendedLifetime(check.sink) {}
    return 0
}

/// The checks run on one input. `sink` keeps computed values observable so the optimiser cannot
/// drop the work (`fields`, descriptions) whose only purpose here is "does not trap".
struct Check {
    let input: [UInt8]
    var sink = 0

    init(input: [UInt8]) { self.input = input }

    func fail(_ what: String) -> Never {
        fatalError("FuzzUCI invariant violated: \(what)\n  input (\(input.count) bytes): \(Hex.string(input))")
    }

    // MARK: (a) the input as a byte stream

    /// Chunk sizes derived from the input itself (1…64 bytes), so libFuzzer explores splits too.
    func chunkSizes(salt: Int) -> [Int] {
        guard !input.isEmpty else { return [] }
        var sizes: [Int] = []
        var consumed = 0
        var k = 0
        while consumed < input.count {
            let byte = Int(input[(k &* 7 &+ salt &* 13 &+ input.count / 2) % input.count])
            let size = min(1 + (byte ^ k ^ salt) % 64, input.count - consumed)
            sizes.append(size)
            consumed += size
            k += 1
        }
        return sizes
    }

    /// Feeds the input in one piece and in input-derived chunks. For a clean stream (nothing
    /// discarded) the events must not depend on the chunking; with garbage they may, since the
    /// reassembler judges a framing by the bytes that follow it when they are there (a stray
    /// byte inside a packet then costs that packet only) and by the packets inside it that its
    /// validator vouches for. Every message is decoded and checked.
    mutating func stream(side: String, accepting accepted: Set<MessageType>, chunkSalt: Int) {
        var whole = Reassembler(accepting: accepted)
        var expected = whole.feed(input)
        expected += whole.flushPartialPacket()

        var chunked = Reassembler(accepting: accepted)
        var events: [Reassembler.Event] = []
        var offset = 0
        for size in chunkSizes(salt: chunkSalt) {
            chunked.feed(input[offset..<offset + size]) { events.append($0) }
            offset += size
        }
        events += chunked.flushPartialPacket()
        if chunked.hasPartialPacket { fail("\(side) reassembler still has a partial packet after flushPartialPacket()") }

        let clean = !expected.contains { if case .discarded = $0 { true } else { false } }
        if clean && events != expected {
            fail("\(side) reassembler: events depend on chunking (\(chunkSizes(salt: chunkSalt))):\n"
                 + "  whole:   \(describe(expected))\n  chunked: \(describe(events))")
        }

        var discarded = 0
        for event in events {
            switch event {
            case let .message(raw):
                if !accepted.contains(raw.messageType) {
                    fail("\(side) reassembler yielded a \(raw.messageType) message it does not accept")
                }
                checkRawRoundTrip(raw, accepted: accepted, context: "\(side) stream")
                decodeAndCheck(raw, context: "\(side) stream")
            case let .discarded(discard):
                // Unframed bytes are at least one byte; a dropped segmented message counts only its
                // payload bytes, which can be 0 (empty PBF segments), so that is not checked.
                let unframed = discard.reason == .notAPacket || discard.reason == .incompletePacket
                if discard.byteCount < (unframed ? 1 : 0) {
                    fail("\(side) reassembler: \(discard.reason) discard of \(discard.byteCount) bytes")
                }
                if discard.sample.count > 16 || discard.sample.count > discard.byteCount {
                    fail("\(side) reassembler: discard sample of \(discard.sample.count) bytes for \(discard.byteCount)")
                }
                discarded += unframed ? discard.byteCount : 0
                sink &+= discard.description.utf8.count
            }
        }
        // Bytes are never invented: what is reported as unframed garbage is part of the input.
        if discarded > input.count { fail("\(side) reassembler discarded \(discarded) bytes of a \(input.count)-byte input") }
    }

    /// A reassembled message, written back to the wire and reassembled by a fresh reassembler of
    /// the same side, comes back unchanged and alone — unless the validator does not vouch for
    /// it while it does vouch for a message inside it: then the inner message wins, by design (a
    /// false header reaching over a real packet). The first reassembler can still have emitted
    /// such a message whole when it came as segments whose headers hid the inner one.
    func checkRawRoundTrip(_ raw: RawMessage, accepted: Set<MessageType>, context: String) {
        let wire = raw.encoded()
        var fresh = Reassembler(accepting: accepted)
        let again = fresh.feed(wire) + fresh.flushPartialPacket()
        if again != [.message(raw)] && !(vouched(raw) == false && again.contains { event in
            if case let .message(inner) = event { inner != raw && vouched(inner) } else { false }
        }) {
            fail("\(context): \(raw.name) re-encoded as \(Hex.string(wire)) reassembles to \(describe(again))")
        }
    }

    /// Whether `PacketValidator.codec` vouches for a message sent as one packet; false for a
    /// longer one, which is judged segment by segment.
    func vouched(_ raw: RawMessage) -> Bool {
        guard raw.payload.count <= PacketHeader.maximumControlPayload else { return false }
        let header = PacketHeader(messageType: raw.messageType, gid: raw.gid, oid: raw.oid, payloadLength: raw.payload.count)
        return PacketValidator.codec.verdict(header, payload: raw.payload[...]) == .valid
    }

    // MARK: (b) the whole input as one message of each MT

    /// Decodes the input (from byte 2 on) as the payload of one message of every MT, with the GID
    /// and OID taken from the first two bytes.
    mutating func wholeInputAsMessages() {
        guard input.count >= 2 else { return }
        let gid = input[0] & 0x0F
        let oid = input[1] & 0x3F
        let payload = Array(input[2...])
        for mt in MessageType.allCases {
            decodeAndCheck(RawMessage(messageType: mt, gid: gid, oid: oid, payload: payload), context: "whole input as \(mt)")
            checkVerdict(RawMessage(messageType: mt, gid: gid, oid: oid, payload: payload))
        }
        // And the GID/OID the other way round (high nibbles), so both bytes steer the decoder.
        let gid2 = input[0] >> 4, oid2 = input[1] >> 2
        for mt in [MessageType.command, .response, .notification] {
            decodeAndCheck(RawMessage(messageType: mt, gid: gid2, oid: oid2, payload: payload), context: "whole input as \(mt) (alt)")
        }
    }

    // MARK: the reassembler's validator

    /// `PacketValidator.codec` stands for the decoders: a packet is `.invalid` exactly when
    /// `UCIMessage(decoding:)` throws and `.valid` only when it decodes; and it judges no prefix
    /// of a `.valid` packet less than the whole (the reassembler's chunking independence rests
    /// on that).
    mutating func checkVerdict(_ raw: RawMessage) {
        guard raw.payload.count <= PacketHeader.maximumControlPayload else { return }
        let header = PacketHeader(messageType: raw.messageType, gid: raw.gid, oid: raw.oid, payloadLength: raw.payload.count)
        let verdict = PacketValidator.codec.verdict(header, payload: raw.payload[...])
        let decodes = (try? UCIMessage(decoding: raw)) != nil
        if (verdict == .invalid) == decodes || (verdict == .valid && !decodes) {
            fail("validator: \(raw.name) \(Hex.string(raw.payload)) judged \(verdict), decodes: \(decodes)")
        }
        guard verdict == .valid else { return }
        for cut in 0..<raw.payload.count where PacketValidator.codec.verdict(header, payload: raw.payload.prefix(cut)) != .valid {
            fail("validator: \(raw.name) \(Hex.string(raw.payload)) is valid but its \(cut)-byte prefix is not")
        }
        sink &+= 1
    }

    // MARK: decoding invariants

    /// `UCIMessage(decoding:)` either throws a describable error or gives a message whose `raw`
    /// decodes to an equal message, whose `fields` can be computed and whose wire form splits
    /// into packets that `Packet(decoding:)` reads back.
    mutating func decodeAndCheck(_ raw: RawMessage, context: String) {
        let message: UCIMessage
        do {
            message = try UCIMessage(decoding: raw)
        } catch {
            sink &+= error.description.utf8.count
            return
        }
        let name = "\(context): \(raw.name) (MT \(raw.messageType.rawValue) GID \(raw.gid) OID \(raw.oid))"
        if message.name != raw.name { fail("\(name): decoded message is named \(message.name)") }

        let reencoded = message.raw
        if reencoded.messageType != raw.messageType || reencoded.gid != raw.gid || reencoded.oid != raw.oid {
            fail("\(name): raw of the decoded message has MT \(reencoded.messageType.rawValue) GID \(reencoded.gid) OID \(reencoded.oid)")
        }
        let again: UCIMessage
        do {
            again = try UCIMessage(decoding: reencoded)
        } catch {
            fail("\(name): re-encoded payload \(Hex.string(reencoded.payload)) does not decode: \(error)")
        }
        if again != message {
            fail("\(name): decode(encode(m)) != m\n  m:     \(message)\n  again: \(again)\n  re-encoded payload: \(Hex.string(reencoded.payload))")
        }
        // Canonical form is a fixed point: encoding the re-decoded message gives the same bytes.
        if again.raw != reencoded { fail("\(name): encoding is not stable: \(Hex.string(reencoded.payload)) then \(Hex.string(again.raw.payload))") }

        let fields = message.fields
        sink &+= fields.count
        var hasher = Hasher()
        hasher.combine(fields)
        sink &+= hasher.finalize()

        // The wire form: packets that each decode on their own, and that join back to the payload.
        let packets = reencoded.packets()
        var joined: [UInt8] = []
        for (index, packet) in packets.enumerated() {
            let bytes = packet.bytes
            let decoded: Packet
            do {
                decoded = try Packet(decoding: bytes)
            } catch {
                fail("\(name): packet \(index) \(Hex.string(bytes)) does not decode: \(error)")
            }
            if decoded != packet { fail("\(name): packet \(index) \(Hex.string(bytes)) decodes to \(decoded), not \(packet)") }
            if packet.header.moreSegmentsFollow != (index < packets.count - 1) {
                fail("\(name): PBF wrong on packet \(index) of \(packets.count)")
            }
            joined += packet.payload
        }
        if joined != reencoded.payload { fail("\(name): packets do not join back to the payload") }
        if packets.flatMap(\.bytes) != message.encoded() { fail("\(name): encoded() differs from the packets' bytes") }
    }

    /// `Packet(decoding:)` on arbitrary bytes never traps, and accepts exactly the inputs whose
    /// header length matches, giving back the same bytes.
    mutating func singlePacket() {
        for candidate in [input, Array(input.prefix(PacketHeader.size + Int(input.count > 3 ? input[3] : 0)))] {
            do {
                let packet = try Packet(decoding: candidate)
                if packet.bytes != normalisedHeader(candidate) {
                    fail("Packet(decoding:) of \(Hex.string(candidate)) re-encodes as \(Hex.string(packet.bytes))")
                }
            } catch {
                sink &+= error.description.utf8.count
            }
        }
    }

    /// The bytes a decoded packet re-encodes to: header fields the decoder ignores (RFU bits,
    /// byte 1 of a data packet) are written as zero.
    func normalisedHeader(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        guard let mt = MessageType(rawValue: bytes[0] >> 5) else { return out }
        if mt == .data { out[1] = 0 } else { out[1] &= 0x3F }
        if !mt.hasTwoByteLength { out[2] = 0 }
        return out
    }

    func describe(_ events: [Reassembler.Event]) -> String {
        events.map { event in
            switch event {
            case let .message(raw): "msg(\(raw.messageType.rawValue)/\(raw.gid)/\(raw.oid) \(Hex.string(raw.payload)))"
            case let .discarded(d): "\(d)"
            }
        }.joined(separator: ", ")
    }
}
