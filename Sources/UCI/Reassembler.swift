/// Turns a byte stream from the device into whole UCI messages.
///
/// Fed arbitrary chunks (one byte at a time, or many packets at once), it frames packets by
/// their headers, joins PBF segments into one message, and resynchronises after garbage the way
/// Qorvo's host tool does (uci.md §1.4): bytes are discarded until one whose MT this side
/// accepts, and, as stronger checks than Qorvo's, a control header's RFU bits must be zero, no
/// packet may declare more than 255 payload bytes.
///
/// A stray byte can still form a header whose length reaches over the next real packet. So each
/// framed packet is put to a `PacketValidator` (by default the decoders of this module): a
/// packet it vouches for (a known message whose bytes fit its layout) stands; one it does not
/// (an unknown opcode, or bytes that cannot be the message named) gives way to a whole message
/// it vouches for that starts inside it, and, when the packet does not even end where another
/// can begin, to any inner framing that does: one stray byte inside a packet then costs that
/// packet only, not the one after it. A packet vouched for is emitted as soon as it is whole; one
/// that is not waits only while a packet inside it that could decide has not fully arrived.
/// Everything it throws away is reported as a `Discard`, so nothing vanishes silently.
///
/// It holds no clock. The firmware drops an incomplete packet after 100 ms; the link layer does
/// the same by calling `flushPartialPacket()` when the line has been quiet that long.
public struct Reassembler: Sendable {
    /// What the reassembler produced from the bytes it was fed.
    public enum Event: Hashable, Sendable {
        case message(RawMessage)
        case discarded(Discard)
    }

    /// Bytes that did not become a message, and why.
    public struct Discard: Hashable, Sendable, CustomStringConvertible {
        public enum Reason: Hashable, Sendable {
            /// Bytes that are not a packet header this side accepts (line noise, a partial packet
            /// from before the host started reading, a packet of the wrong direction).
            case notAPacket
            /// A segmented message was interrupted by a packet of another MT/GID/OID.
            case interruptedSegments
            /// A segmented message grew beyond `maximumMessageSize`.
            case messageTooLarge
            /// An incomplete packet was flushed after the line went quiet.
            case incompletePacket
        }
        public var reason: Reason
        public var byteCount: Int
        /// The first few discarded bytes, for a log line.
        public var sample: [UInt8]

        public init(reason: Reason, byteCount: Int, sample: [UInt8]) {
            self.reason = reason
            self.byteCount = byteCount
            self.sample = sample
        }

        public var description: String {
            let what: String = switch reason {
            case .notAPacket: "not a UCI packet"
            case .interruptedSegments: "segmented message interrupted by another message"
            case .messageTooLarge: "segmented message too large"
            case .incompletePacket: "incomplete packet"
            }
            return "discarded \(byteCount) byte\(byteCount == 1 ? "" : "s") (\(what)): \(Hex.string(sample))\(byteCount > sample.count ? "…" : "")"
        }
    }

    /// The message types this side expects to receive: a host gets responses, notifications
    /// and data; a device (the simulator) gets commands.
    public let accepted: Set<MessageType>
    /// ``accepted`` as one bit per message type (bit `rawValue`): what every header is checked
    /// against, where the set would hash the type for each.
    private let acceptedBits: UInt8
    public let maximumMessageSize: Int
    /// Judges candidate packets, so that a false header (a stray byte) does not swallow the real
    /// packet it reaches over.
    public let validator: PacketValidator

    private var buffer: [UInt8] = []
    private var start = 0
    private var skipped: [UInt8] = []
    private var skippedCount = 0
    /// A segmented message being joined; `vouched` when the validator vouched for its first segment.
    private var segments: (identity: Identity, payload: [UInt8], vouched: Bool)?
    /// The pending segments and the last one, joined to judge the whole message: kept, so that
    /// judging a segmented notification (every one of eight measurements) allocates nothing.
    private var joined: [UInt8] = []
    private var dropping: Identity?

    private struct Identity: Hashable, Sendable {
        var messageType: MessageType
        var gid: UInt8
        var oid: UInt8
    }

    /// What a host receives from a QM33 device: responses and notifications only, as Qorvo's
    /// resync rule says. Data packets (unsupported on QM33) are left out on purpose: a stray
    /// byte 0x00–0x1F would otherwise open a data header with a 16-bit length.
    public static let hostSide: Set<MessageType> = [.response, .notification]
    /// What a device receives: commands.
    public static let deviceSide: Set<MessageType> = [.command]

    /// `validator` judges candidate packets; `.codec` (the decoders of this module) unless told
    /// otherwise, `.framingOnly` to frame by headers alone.
    public init(accepting accepted: Set<MessageType> = Reassembler.hostSide, maximumMessageSize: Int = 64 * 1024,
                validator: PacketValidator = .codec) {
        self.accepted = accepted
        acceptedBits = accepted.reduce(0) { $0 | 1 << $1.rawValue }
        self.maximumMessageSize = maximumMessageSize
        self.validator = validator
    }

    /// True while buffered bytes wait for more: an unfinished packet, or a whole one whose framing
    /// is decided by a packet inside it that has not fully arrived. `flushPartialPacket()` settles both.
    public var hasPartialPacket: Bool { start < buffer.count }

    /// Feeds bytes; returns the messages and discards they completed, in stream order.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Event] {
        var events: [Event] = []
        feed(bytes) { events.append($0) }
        return events
    }

    /// Feeds bytes and hands each completed event to `emit` without collecting them.
    public mutating func feed(_ bytes: some Sequence<UInt8>, _ emit: (Event) -> Void) {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 4096 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
        scan(emit)
    }

    /// Discards a buffered incomplete packet (and any unreported garbage), as the firmware does
    /// after 100 ms of silence, so that a corrupted length byte cannot swallow the next packets.
    public mutating func flushPartialPacket() -> [Event] {
        var events: [Event] = []
        // Nothing more will arrive: a whole packet waiting on what follows it is judged without
        // it, and an incomplete one is dropped — all but a whole valid message inside it.
        scan(lineQuiet: true) { events.append($0) }
        if let discard = reportSkipped() { events.append(.discarded(discard)) }
        buffer.removeAll(keepingCapacity: true)
        start = 0
        return events
    }

    private mutating func scan(lineQuiet: Bool = false, _ emit: (Event) -> Void) {
        while start < buffer.count {
            let b0 = buffer[start]
            guard let mt = acceptedType(b0) else {
                skip()
                continue
            }
            // A control header's byte 1 bits 7..6 and byte 2 are RFU (zero): check what has arrived.
            if !mt.hasTwoByteLength {
                if start + 1 < buffer.count, buffer[start + 1] & 0xC0 != 0 { skip(); continue }
                if start + 2 < buffer.count, buffer[start + 2] != 0 { skip(); continue }
            }
            guard buffer.count - start >= PacketHeader.size else {
                if lineQuiet { dropIncompletePacket(upTo: buffer.count, emit) }
                break
            }
            let length: Int = if mt.hasTwoByteLength {
                Int(buffer[start + 2]) | Int(buffer[start + 3]) << 8
            } else {
                Int(buffer[start + 3])
            }
            // No packet carries more than 255 payload bytes (UCI_MAX_DATA_PAYLOAD_SIZE, uci.md §1.3).
            if length > PacketHeader.maximumControlPayload { skip(); continue }
            let identity = Identity(messageType: mt, gid: b0 & 0x0F, oid: mt == .data ? 0 : buffer[start + 1] & 0x3F)
            let header = PacketHeader(messageType: mt, moreSegmentsFollow: b0 & 0x10 != 0, gid: identity.gid,
                                      oid: identity.oid, payloadLength: length)
            let payloadStart = start + PacketHeader.size
            let end = payloadStart + length
            if end > buffer.count {
                // Not all here yet. A header the validator does not vouch for, with a whole valid
                // message starting inside its extent, was a stray byte: the message is emitted
                // now instead of waiting for (or being swallowed by) the false packet. Once the
                // line is quiet, the packet will not complete: only such a message is saved.
                let vouched = !lineQuiet && judge(header, identity, payloadStart..<buffer.count).verdict == .valid
                if !vouched, case let .at(index) = alternative(after: start, before: buffer.count, weak: false, lineQuiet: lineQuiet) {
                    if lineQuiet { dropIncompletePacket(upTo: index, emit) } else { skip(upTo: index) }
                    continue
                }
                if lineQuiet { dropIncompletePacket(upTo: buffer.count, emit) }
                break
            }
            let (judgement, standalone) = judge(header, identity, payloadStart..<end)
            if judgement != .valid {
                // Not vouched for: a false header (a stray byte, or a stray byte inside a packet
                // shifting what follows) must not swallow the real packet it reaches over. When
                // the packet does not even end where another can begin, weaker evidence will do:
                // an inner framing that does (one stray byte inside a packet then costs that
                // packet only, not the one after it).
                let weak = follower(at: end) == .implausible
                switch alternative(after: start, before: end, weak: weak, lineQuiet: lineQuiet) {
                case let .at(index):
                    skip(upTo: index)
                    continue
                case .undecided:
                    // A candidate inside has not fully arrived: it decides, so wait for it.
                    return
                case .none:
                    break
                }
            }
            if let discard = reportSkipped() { emit(.discarded(discard)) }
            start = end
            packet(identity, more: header.moreSegmentsFollow, vouched: judgement == .valid, standalone: standalone,
                   payload: buffer[payloadStart..<end], emit)
        }
    }

    /// The validator's verdict on the packet at `start`, with `payload` (a range of `buffer`)
    /// what has arrived of its payload. Segments of a longer message are judged as one message:
    /// the first as the start of it, the middle ones by the first, the last by the whole. When
    /// the last packet is vouched for on its own while the first segment or the whole is not, it
    /// stands alone (`standalone`): the pending "segment" was a stray byte whose header happened
    /// to name the same opcode (a stray 0x72 after a SESSION_INFO_NTF's 0x62 does), and must not
    /// swallow the real packet.
    private mutating func judge(_ header: PacketHeader, _ identity: Identity, _ payload: Range<Int>)
        -> (verdict: PacketValidator.Verdict, standalone: Bool) {
        if segments != nil, let pending = segments, pending.identity == identity {
            if header.moreSegmentsFollow { return (pending.vouched ? .valid : .unknown, false) }
            let alone = validator.verdict(header, payload: buffer[payload])
            // A first segment not vouched for, then a packet that is a whole message on its own.
            if !pending.vouched && alone == .valid { return (.valid, true) }
            var whole = header
            whole.payloadLength = pending.payload.count + header.payloadLength
            joined.removeAll(keepingCapacity: true)
            joined.append(contentsOf: pending.payload)
            joined.append(contentsOf: buffer[payload])
            let verdict = validator.verdict(whole, payload: joined[...])
            if verdict == .valid { return (.valid, false) }
            return alone == .valid ? (.valid, true) : (verdict, false)
        }
        if dropping != nil && dropping == identity { return (.unknown, false) }
        guard header.moreSegmentsFollow else { return (validator.verdict(header, payload: buffer[payload]), false) }
        // Senders fill every segment but the last (AOSP to 255 bytes, Qorvo's host to 250,
        // uci.md §1.3): a shorter first segment is not vouched for.
        guard header.payloadLength >= 250 else { return (.unknown, false) }
        var whole = header
        whole.moreSegmentsFollow = false
        whole.payloadLength = max(maximumMessageSize, header.payloadLength + 1)
        return (validator.verdict(whole, payload: buffer[payload]), false)
    }

    /// What follows a packet: the next packet's header, garbage, or bytes not yet arrived.
    private enum Follower { case plausible, implausible, notYetArrived }

    /// Whether what follows a packet ending at `index` can be another packet, allowing one or
    /// two stray bytes in between.
    private func follower(at index: Int) -> Follower {
        var waiting = false
        for offset in 0...2 {
            switch headerStart(at: index + offset) {
            case .plausible: return .plausible
            case .notYetArrived: waiting = true
            case .implausible: break
            }
        }
        return waiting ? .notYetArrived : .implausible
    }

    /// The message type of a header starting with `byte`, if this side accepts it.
    private func acceptedType(_ byte: UInt8) -> MessageType? {
        guard acceptedBits & 1 << (byte >> 5) != 0 else { return nil }
        return MessageType(rawValue: byte >> 5)
    }

    /// Whether a packet this side accepts may start at `index`, judged on the bytes that have arrived.
    private func headerStart(at index: Int) -> Follower {
        guard index < buffer.count else { return .notYetArrived }
        guard let mt = acceptedType(buffer[index]) else { return .implausible }
        if mt.hasTwoByteLength { return .plausible }
        guard index + 1 < buffer.count else { return .notYetArrived }
        if buffer[index + 1] & 0xC0 != 0 { return .implausible }
        guard index + 2 < buffer.count else { return .notYetArrived }
        return buffer[index + 2] == 0 ? .plausible : .implausible
    }

    private enum Alternative { case at(Int), undecided, none }

    /// A framing starting inside `(start, end)` that is evidence that the packet at `start` was
    /// framed on a stray byte: a whole message the validator vouches for, or, when `weak`, any
    /// whole packet it does not reject that ends where another can begin. `.none` when there is
    /// none — then the packet at `start` stands; `.undecided` while a candidate that could
    /// become such evidence has not fully arrived (never once the line is quiet: it will not).
    private func alternative(after start: Int, before end: Int, weak: Bool, lineQuiet: Bool) -> Alternative {
        var undecided = false
        var firstWeak: Int?
        for index in (start + 1)..<end {
            guard headerStart(at: index) != .implausible else { continue }
            let b0 = buffer[index]
            guard index + PacketHeader.size <= buffer.count else {
                // A header cut short by the end of what has arrived: worth waiting for when it
                // may turn out to be vouched for.
                if !lineQuiet && (weak || headerMayBeVouchedFor(at: index)) { undecided = true }
                break
            }
            let mt = MessageType(rawValue: b0 >> 5)!
            let length = mt.hasTwoByteLength ? Int(buffer[index + 2]) | Int(buffer[index + 3]) << 8 : Int(buffer[index + 3])
            guard length <= PacketHeader.maximumControlPayload else { continue }
            let innerEnd = index + PacketHeader.size + length
            let complete = innerEnd <= buffer.count
            if !complete && lineQuiet { continue }
            let segment = b0 & 0x10 != 0
            let header = PacketHeader(messageType: mt, moreSegmentsFollow: segment, gid: b0 & 0x0F,
                                      oid: buffer[index + 1] & 0x3F, payloadLength: length)
            let judgement: PacketValidator.Verdict = segment ? .unknown
                : validator.verdict(header, payload: buffer[(index + PacketHeader.size)..<min(innerEnd, buffer.count)])
            if complete {
                if judgement == .valid { return .at(index) }
                // Weak evidence counts only ahead of a candidate that is still undecided.
                if weak && firstWeak == nil && !undecided && judgement != .invalid && follower(at: innerEnd) != .implausible {
                    firstWeak = index
                }
            } else if judgement == .valid || (weak && judgement != .invalid) {
                undecided = true
            }
        }
        // A whole message vouched for anywhere inside beats weak evidence before it.
        if let firstWeak { return .at(firstWeak) }
        return undecided ? .undecided : .none
    }

    /// Whether a header of which only one to three bytes have arrived may name a message the
    /// validator vouches for, judged by its opcode: with only byte 0 there, by whether any OID
    /// would do (so an unknown message ending in 0x55 is not held back, one ending in 0x62 is).
    /// A segment is never vouched for on its own (see `alternative`).
    private func headerMayBeVouchedFor(at index: Int) -> Bool {
        let b0 = buffer[index]
        guard b0 & 0x10 == 0, let mt = MessageType(rawValue: b0 >> 5) else { return false }
        let oids: ClosedRange<UInt8> = index + 1 < buffer.count ? buffer[index + 1] & 0x3F...buffer[index + 1] & 0x3F : 0...0x3F
        return oids.contains { oid in
            let header = PacketHeader(messageType: mt, gid: b0 & 0x0F, oid: oid, payloadLength: PacketHeader.maximumControlPayload)
            return validator.verdict(header, payload: []) == .valid
        }
    }

    private mutating func skip(upTo index: Int) {
        while start < index { skip() }
    }

    /// Reports the bytes from `start` to `index` as an incomplete packet (after any garbage before them).
    private mutating func dropIncompletePacket(upTo index: Int, _ emit: (Event) -> Void) {
        if let discard = reportSkipped() { emit(.discarded(discard)) }
        let dropped = buffer[start..<index]
        emit(.discarded(Discard(reason: .incompletePacket, byteCount: dropped.count, sample: Array(dropped.prefix(16)))))
        start = index
    }

    @inline(__always)
    private mutating func skip() {
        if skipped.count < 16 { skipped.append(buffer[start]) }
        skippedCount += 1
        start += 1
    }

    private mutating func reportSkipped() -> Discard? {
        guard skippedCount > 0 else { return nil }
        defer { skipped.removeAll(keepingCapacity: true); skippedCount = 0 }
        return Discard(reason: .notAPacket, byteCount: skippedCount, sample: skipped)
    }

    private mutating func packet(_ identity: Identity, more: Bool, vouched: Bool, standalone: Bool,
                                 payload: ArraySlice<UInt8>, _ emit: (Event) -> Void) {
        if standalone, let pending = segments {
            emit(.discarded(Discard(reason: .interruptedSegments, byteCount: pending.payload.count,
                                    sample: Array(pending.payload.prefix(16)))))
            segments = nil
        }
        if let dropped = dropping {
            if dropped == identity {
                if !more { dropping = nil }
                return
            }
            dropping = nil
        }
        if var pending = segments {
            if pending.identity == identity {
                // Let go first, so that `pending` holds the only reference and the payload grows
                // in place instead of being copied.
                segments = nil
                pending.payload.append(contentsOf: payload)
                if pending.payload.count > maximumMessageSize {
                    emit(.discarded(Discard(reason: .messageTooLarge, byteCount: pending.payload.count,
                                            sample: Array(pending.payload.prefix(16)))))
                    if more { dropping = identity }
                    return
                }
                if more {
                    segments = pending
                } else {
                    emit(.message(RawMessage(messageType: identity.messageType, gid: identity.gid, oid: identity.oid,
                                             payload: pending.payload)))
                }
                return
            }
            // Android keeps reassembling across a device-status notification (uci.md §1.3).
            let isDeviceStatus = identity.messageType == .notification && identity.gid == 0 && identity.oid == 0x01
            if isDeviceStatus && !more {
                emit(.message(RawMessage(messageType: identity.messageType, gid: identity.gid, oid: identity.oid,
                                         payload: Array(payload))))
                return
            }
            emit(.discarded(Discard(reason: .interruptedSegments, byteCount: pending.payload.count,
                                    sample: Array(pending.payload.prefix(16)))))
            segments = nil
        }
        if more {
            // Room for two more segments: one exactly as large as the first would be copied
            // into a larger one by the next. No more: with its header the storage stays under
            // 1 KiB, which glibc's malloc serves from its per-thread cache; a larger block is
            // taken from the arena after merging every small freed block first, and a ranging
            // round of 8 peers arrives in two segments, 50 times a second.
            var joining: [UInt8] = []
            joining.reserveCapacity(min(maximumMessageSize, 3 * PacketHeader.maximumControlPayload))
            joining.append(contentsOf: payload)
            segments = (identity, joining, vouched)
        } else {
            emit(.message(RawMessage(messageType: identity.messageType, gid: identity.gid, oid: identity.oid,
                                     payload: Array(payload))))
        }
    }
}
