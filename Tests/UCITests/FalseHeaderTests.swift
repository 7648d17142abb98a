import Testing
import UCI

/// A stray byte can form a false UCI header whose length reaches over the next real packet. The
/// reassembler asks its validator about every packet it frames, so the real
/// packet inside comes out — at once when it is whole, without waiting for what follows.
@Suite struct FalseHeaderTests {
    static func messages(_ events: [Reassembler.Event]) -> [RawMessage] {
        events.compactMap { if case let .message(m) = $0 { m } else { nil } }
    }

    static func discardedBytes(_ events: [Reassembler.Event]) -> Int {
        events.reduce(0) { sum, event in if case let .discarded(d) = event { sum + d.byteCount } else { sum } }
    }

    static let v14 = RawMessage(messageType: .notification, gid: 2, oid: 0, payload: Array(Vectors.v14[4...]))
    static let v15 = RawMessage(messageType: .notification, gid: 2, oid: 0, payload: Array(Vectors.v15[4...]))

    /// Stray bytes `6A 05 00 3C` frame an unknown notification of 60 bytes: exactly the
    /// SESSION_INFO_NTF that follows, which then ends the stream. Framed by headers alone, the
    /// real notification is swallowed whole; the validator vouches for the one inside instead.
    @Test func aFalseHeaderSwallowingTheLastPacketGivesWayAtOnce() {
        let stray: [UInt8] = [0x6A, 0x05, 0x00, 0x3C]
        let stream = stray + Vectors.v14

        var framingOnly = Reassembler(validator: .framingOnly)
        #expect(Self.messages(framingOnly.feed(stream)) == [RawMessage(messageType: .notification, gid: 0xA, oid: 5,
                                                                        payload: Vectors.v14)])

        var r = Reassembler()
        let events = r.feed(stream)
        // Emitted by this very feed: nothing follows on the line to confirm it, and nothing has to.
        #expect(events == [.discarded(.init(reason: .notAPacket, byteCount: 4, sample: stray)), .message(Self.v14)])
        #expect(!r.hasPartialPacket)
    }

    /// The seed-4 case of the stress test: a stray 0x72 after a SESSION_INFO_NTF's first byte.
    /// `62` fails the RFU check, and `72 00 00 38` frames the first segment (PBF) of a
    /// SESSION_INFO_NTF that the next, real notification would complete as its "last segment".
    @Test func aStrayByteFormingAFalseFirstSegmentDoesNotSwallowTheNextNotification() {
        let touched = [0x62, 0x72] + Vectors.v14[1...]
        var r = Reassembler()
        let events = r.feed(touched + Vectors.v15)
        #expect(Self.messages(events) == [Self.v15])
        #expect(events.contains(.discarded(.init(reason: .interruptedSegments, byteCount: 56,
                                                   sample: Array(Vectors.v14[4..<20])))))
    }

    /// A stray 0x3C as the length byte: the first notification's header now reaches three bytes
    /// into the second. Fed a byte at a time (as a slow line delivers it), the false packet is
    /// whole when the real one has barely begun; it must wait for it, not swallow its header.
    @Test func aStrayLengthByteReachingIntoTheNextPacketFedByteByByte() {
        let touched = Array(Vectors.v14[0..<3]) + [0x3C] + Vectors.v14[3...]
        let stream = touched + Vectors.v15 + Vectors.v16
        var r = Reassembler()
        var events: [Reassembler.Event] = []
        for byte in stream { events += r.feed([byte]) }
        let messages = Self.messages(events)
        #expect(messages.suffix(2) == [Self.v15, RawMessage(messageType: .notification, gid: 2, oid: 0,
                                                            payload: Array(Vectors.v16[4...]))])
        #expect(Self.discardedBytes(events) + messages.reduce(0) { $0 + 4 + $1.payload.count } == stream.count)
    }

    /// Whole at a chunk boundary, the false packet holds the start of the real one; the real
    /// one comes out when its last byte arrives.
    @Test func aFalsePacketEndingAtAChunkBoundaryWaitsForThePacketInsideIt() {
        let stray: [UInt8] = [0x6A, 0x05, 0x00, 0x20]
        var r = Reassembler()
        let first = r.feed(stray + Vectors.v14[0..<32])
        #expect(first.isEmpty)
        #expect(r.hasPartialPacket)
        let second = r.feed(Vectors.v14[32...])
        #expect(second == [.discarded(.init(reason: .notAPacket, byteCount: 4, sample: stray)), .message(Self.v14)])
    }

    /// An unknown message held back because its last bytes could start a SESSION_INFO_NTF is not
    /// lost when the line goes quiet: the flush emits it.
    @Test func anUnknownMessageHeldBackIsEmittedWhenTheLineGoesQuiet() {
        let unknown = RawMessage(messageType: .notification, gid: 0xA, oid: 5, payload: [0xAA, 0x62, 0x00])
        var r = Reassembler()
        #expect(r.feed(unknown.encoded()).isEmpty)
        #expect(r.flushPartialPacket() == [.message(unknown)])
        // One whose last byte cannot start a message the codec knows is not held back.
        let other = RawMessage(messageType: .notification, gid: 0xA, oid: 5, payload: [0xAA, 0x55])
        #expect(r.feed(other.encoded()) == [.message(other)])
    }

    /// A stray byte inside a vouched-for notification's payload does not hold it back, even when
    /// what follows it is not a header (the garbage after it is reported, the next packet kept).
    @Test func aVouchedPacketFollowedByGarbageStands() {
        var r = Reassembler()
        let events = r.feed(Vectors.v14 + [0x00, 0x01, 0x02, 0x03] + Vectors.v15)
        #expect(events == [.message(Self.v14), .discarded(.init(reason: .notAPacket, byteCount: 4, sample: [0, 1, 2, 3])),
                           .message(Self.v15)])
    }
}
