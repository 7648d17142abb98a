import Testing
import UCI

/// The stream reassembler yields the same messages however the bytes are chunked, resyncs
/// after garbage, and reports every byte it throws away.
@Suite struct ReassemblerTests {
    /// A realistic device-to-host stream: V1, V4, V6, V10, V11 ×2, V14–V17, V18, V23 (segmented).
    static let stream: [UInt8] = Vectors.v1Reply + Vectors.v4Reply + Vectors.v6Reply + Vectors.v10Reply
        + Vectors.v11Ntf0 + Vectors.v11Ntf1 + Vectors.v14 + Vectors.v15 + Vectors.v16 + Vectors.v17 + Vectors.v18
        + Array(Vectors.v23Fragments.joined()) + Vectors.v13Reply

    static var expected: [RawMessage] {
        var r = Reassembler()
        return r.feed(stream).compactMap { if case let .message(m) = $0 { m } else { nil } }
    }

    @Test func wholeStreamAtOnce() {
        var r = Reassembler()
        let events = r.feed(Self.stream)
        #expect(events.count == 21)
        #expect(events.allSatisfy { if case .message = $0 { true } else { false } })
        #expect(!r.hasPartialPacket)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 7, 13, 31, 64, 255, 256, 1000])
    func everyFixedChunkSize(_ size: Int) {
        var r = Reassembler()
        var out: [RawMessage] = []
        var index = 0
        while index < Self.stream.count {
            let end = min(index + size, Self.stream.count)
            for event in r.feed(Self.stream[index..<end]) {
                guard case let .message(m) = event else { Issue.record("unexpected \(event)"); continue }
                out.append(m)
            }
            index = end
        }
        #expect(out == Self.expected)
    }

    @Test func everySplitPointOfTwoChunks() {
        let expected = Self.expected
        for split in 0...Self.stream.count {
            var r = Reassembler()
            let events = r.feed(Self.stream[..<split]) + r.feed(Self.stream[split...])
            let messages = events.compactMap { if case let .message(m) = $0 { m } else { nil } }
            if messages != expected { Issue.record("split at \(split) gave \(messages.count) messages"); return }
        }
    }

    @Test func pseudoRandomChunkings() {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200 {
            var r = Reassembler()
            var out: [RawMessage] = []
            var index = 0
            while index < Self.stream.count {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let size = Int(seed >> 59) + 1 // 1…32
                let end = min(index + size, Self.stream.count)
                for case let .message(m) in r.feed(Self.stream[index..<end]) { out.append(m) }
                index = end
            }
            #expect(out == Self.expected)
        }
    }

    @Test func garbageBetweenPacketsIsSkippedAndReported() {
        var r = Reassembler()
        let garbage: [UInt8] = [0x00, 0xFF, 0x13, 0x20, 0x2A, 0x99]
        let events = r.feed(Vectors.v14 + garbage + Vectors.v15)
        #expect(events.count == 3)
        guard events.count == 3, case let .discarded(discard) = events[1] else { Issue.record("\(events)"); return }
        #expect(discard.reason == .notAPacket)
        #expect(discard.byteCount == garbage.count)
        #expect(discard.sample == garbage)
        #expect(discard.description.contains("discarded 6 bytes"))
    }

    @Test func garbageLookingLikeAHeaderIsRejectedByItsRFUByte() {
        // 0x62 0x00 0x07: a notification byte followed by a non-zero RFU byte is not a header.
        var r = Reassembler()
        let events = r.feed([0x62, 0x00, 0x07] + Vectors.v16)
        #expect(events.count == 2)
        #expect(events.last == .message(RawMessage(messageType: .notification, gid: 2, oid: 0,
                                                   payload: Array(Vectors.v16[4...]))))
    }

    @Test func commandsAreNotAcceptedOnTheHostSide() {
        var r = Reassembler()
        let events = r.feed(Vectors.v9StartCmd + Vectors.v9StartRsp)
        #expect(events.first == .discarded(.init(reason: .notAPacket, byteCount: 8, sample: Vectors.v9StartCmd)))
        #expect(events.count == 2)
    }

    @Test func deviceSideAcceptsCommands() {
        var r = Reassembler(accepting: Reassembler.deviceSide)
        let events = r.feed(Vectors.v9StartRsp + Vectors.v9StartCmd)
        #expect(events.count == 2)
        #expect(events.last == .message(RawMessage(messageType: .command, gid: 2, oid: 0, payload: [1, 0, 0, 0])))
    }

    @Test func aStalePartialPacketIsFlushed() {
        var r = Reassembler()
        // A corrupt header claiming 0xFF bytes would swallow what follows; flushing after the
        // line went quiet (as the firmware does after 100 ms) lets the next packet through.
        #expect(r.feed([0x62, 0x00, 0x00, 0xFF, 0x01]).isEmpty)
        #expect(r.hasPartialPacket)
        #expect(r.flushPartialPacket() == [.discarded(.init(reason: .incompletePacket, byteCount: 5,
                                                             sample: [0x62, 0x00, 0x00, 0xFF, 0x01]))])
        let events = r.feed(Vectors.v14)
        #expect(events.count == 1)
    }

    @Test func interruptedSegmentsAreReported() {
        var r = Reassembler()
        let first = Vectors.v23Fragments[0]
        let events = r.feed(first + Vectors.v14)
        #expect(events.count == 2)
        #expect(events.first == .discarded(.init(reason: .interruptedSegments, byteCount: 255,
                                                 sample: Array(Vectors.v23Payload.prefix(16)))))
    }

    @Test func deviceStatusDuringSegmentsDoesNotBreakThem() {
        var r = Reassembler()
        let events = r.feed(Vectors.v23Fragments[0] + [0x60, 0x01, 0x00, 0x01, 0xFF] + Vectors.v23Fragments[1])
        #expect(events == [
            .message(RawMessage(messageType: .notification, gid: 0, oid: 1, payload: [0xFF])),
            .message(RawMessage(messageType: .notification, gid: 9, oid: 1, payload: Vectors.v23Payload)),
        ])
    }

    @Test func oversizedSegmentedMessagesAreDroppedWhole() {
        var r = Reassembler(maximumMessageSize: 300)
        let raw = RawMessage(messageType: .notification, gid: 9, oid: 1, payload: Array(repeating: 1, count: 1000))
        let events = r.feed(raw.encoded() + Vectors.v14)
        #expect(events.count == 2)
        guard case let .discarded(d) = events.first else { Issue.record("\(events)"); return }
        #expect(d.reason == .messageTooLarge)
        #expect(events.last.map { if case .message = $0 { true } else { false } } == true)
    }

    @Test func trailingGarbageIsReportedWhenFlushed() {
        var r = Reassembler()
        #expect(r.feed([0x01, 0x02]).isEmpty)
        #expect(r.flushPartialPacket() == [.discarded(.init(reason: .notAPacket, byteCount: 2, sample: [1, 2]))])
    }
}

/// Random garbage in a continuous stream (1 % random garbage bytes): every notification
/// that the garbage did not touch is still decoded.
@Suite struct GarbageStressTests {
    @Test(arguments: 1...20)
    func onePercentRandomGarbage(seed: UInt64) {
        var state = (seed &+ 0x5851_F42D_4C95_7F2D) &* 0xD1B5_4A32_D192_ED03
        func random() -> UInt64 {
            state = state &+ 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var stream: [UInt8] = []
        var intact: [UInt32] = []
        for sequence in 0..<3000 {
            let m = TwoWayRangingMeasurement(macAddress: .short(UInt16(sequence % 3 + 1)), distanceRaw: UInt16(random() % 2000))
            let bytes = UCIMessage.notification(.sessionInfo(SessionInfo(
                sequenceNumber: UInt32(sequence), sessionHandle: 1, currentRangingInterval: 200, measurements: .twoWay([m])))).encoded()
            var touched = false
            for (position, byte) in bytes.enumerated() {
                // Each position gets a random garbage byte in front of it with probability 1 %.
                if random() % 100 == 0 {
                    stream.append(UInt8(truncatingIfNeeded: random()))
                    touched = touched || position > 0
                }
                stream.append(byte)
            }
            if !touched { intact.append(UInt32(sequence)) }
        }
        var reassembler = Reassembler()
        var decoded: Set<UInt32> = []
        var index = 0
        while index < stream.count {
            let size = Int(random() % 200) + 1
            for case let .message(raw) in reassembler.feed(stream[index..<min(index + size, stream.count)]) {
                if case let .notification(.sessionInfo(info))? = try? UCIMessage(decoding: raw) { decoded.insert(info.sequenceNumber) }
            }
            index += size
        }
        // The line goes quiet after the last byte, as it does between bursts.
        for case let .message(raw) in reassembler.flushPartialPacket() {
            if case let .notification(.sessionInfo(info))? = try? UCIMessage(decoding: raw) { decoded.insert(info.sequenceNumber) }
        }
        let lost = intact.filter { !decoded.contains($0) }
        // Not one: a stray byte that forms a false header whose length reaches over the next
        // packet must not cost that packet (the validator vouches for the real one inside).
        #expect(lost.isEmpty, "\(lost.count) of \(intact.count) intact notifications lost: \(lost.prefix(10))")
    }
}
