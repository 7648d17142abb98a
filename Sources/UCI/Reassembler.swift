/// Turns a byte stream from the device into whole UCI messages.
///
/// Fed arbitrary chunks (one byte at a time, or many packets at once), it frames packets by
/// their headers, joins PBF segments into one message, and resynchronises after garbage the way
/// Qorvo's host tool does (uci.md §1.4): bytes are discarded until one whose MT this side
/// accepts, and, as stronger checks than Qorvo's, a control header's RFU bits must be zero, no
/// packet may declare more than 255 payload bytes, and when a packet followed by more bytes does
/// not end where another can begin, while a header inside it does frame a packet that does, the
/// inner framing wins: one stray byte inside a packet then costs that packet only, not the one
/// after it.
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
    public let maximumMessageSize: Int

    private var buffer: [UInt8] = []
    private var start = 0
    private var skipped: [UInt8] = []
    private var skippedCount = 0
    private var segments: (identity: Identity, payload: [UInt8])?
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

    public init(accepting accepted: Set<MessageType> = Reassembler.hostSide, maximumMessageSize: Int = 64 * 1024) {
        self.accepted = accepted
        self.maximumMessageSize = maximumMessageSize
    }

    /// True while bytes of an unfinished packet are buffered.
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
        if start < buffer.count {
            let rest = Array(buffer[start...])
            buffer.removeAll(keepingCapacity: true)
            start = 0
            if let discard = reportSkipped() { events.append(.discarded(discard)) }
            events.append(.discarded(Discard(reason: .incompletePacket, byteCount: rest.count, sample: Array(rest.prefix(16)))))
        } else if let discard = reportSkipped() {
            events.append(.discarded(discard))
        }
        return events
    }

    private mutating func scan(_ emit: (Event) -> Void) {
        while start < buffer.count {
            let b0 = buffer[start]
            guard let mt = MessageType(rawValue: b0 >> 5), accepted.contains(mt) else {
                skip()
                continue
            }
            // A control header's byte 1 bits 7..6 and byte 2 are RFU (zero): check what has arrived.
            if !mt.hasTwoByteLength {
                if start + 1 < buffer.count, buffer[start + 1] & 0xC0 != 0 { skip(); continue }
                if start + 2 < buffer.count, buffer[start + 2] != 0 { skip(); continue }
            }
            guard buffer.count - start >= PacketHeader.size else { break }
            let length: Int = if mt.hasTwoByteLength {
                Int(buffer[start + 2]) | Int(buffer[start + 3]) << 8
            } else {
                Int(buffer[start + 3])
            }
            // No packet carries more than 255 payload bytes (UCI_MAX_DATA_PAYLOAD_SIZE, uci.md §1.3).
            if length > PacketHeader.maximumControlPayload { skip(); continue }
            guard buffer.count - start >= PacketHeader.size + length else { break }
            let end = start + PacketHeader.size + length
            // When bytes follow in the same buffer, the packet must end where another one can
            // begin (allowing one or two stray bytes in between). If not, its header was not a
            // header — a stray byte inside a packet shifts everything after it — so rescan from
            // the next byte instead of swallowing the start of the packet that follows.
            if end < buffer.count, !plausibleFollower(at: end) {
                let alternative = betterFraming(after: start, before: end)
                if case let .at(resync) = alternative {
                    while start < resync { skip() }
                    continue
                }
                // A header inside whose packet has not fully arrived yet: wait for it.
                if case .undecided = alternative { break }
            }
            if let discard = reportSkipped() { emit(.discarded(discard)) }
            let identity = Identity(messageType: mt, gid: b0 & 0x0F, oid: mt == .data ? 0 : buffer[start + 1] & 0x3F)
            let more = b0 & 0x10 != 0
            let payloadStart = start + PacketHeader.size
            start = payloadStart + length
            packet(identity, more: more, payload: buffer[payloadStart..<start], emit)
        }
    }

    /// Whether what follows a packet ending at `index` can be another packet, allowing one or
    /// two stray bytes in between.
    private func plausibleFollower(at index: Int) -> Bool {
        (0...2).contains { plausibleHeader(at: index + $0) }
    }

    private enum Alternative { case at(Int), undecided, none }

    /// A header inside `(start, end)` whose packet is complete and ends where another can begin:
    /// evidence that the packet at `start` was framed on a stray byte. `.none` when there is no
    /// such header — then the packet at `start` stands and what follows it is garbage;
    /// `.undecided` while a candidate's packet has not fully arrived.
    private func betterFraming(after start: Int, before end: Int) -> Alternative {
        var undecided = false
        var index = start + 1
        while index < end {
            if plausibleHeader(at: index), let mt = MessageType(rawValue: buffer[index] >> 5) {
                guard index + PacketHeader.size <= buffer.count else { undecided = true; break }
                let length = mt.hasTwoByteLength ? Int(buffer[index + 2]) | Int(buffer[index + 3]) << 8 : Int(buffer[index + 3])
                let candidateEnd = index + PacketHeader.size + length
                if length <= PacketHeader.maximumControlPayload {
                    if candidateEnd > buffer.count {
                        undecided = true
                    } else if plausibleFollower(at: candidateEnd) {
                        return .at(index)
                    }
                }
            }
            index += 1
        }
        return undecided ? .undecided : .none
    }

    /// Whether a packet this side accepts may start at `index`, judged on the bytes that have
    /// arrived: true when there are none yet to judge.
    private func plausibleHeader(at index: Int) -> Bool {
        guard index < buffer.count else { return true }
        guard let mt = MessageType(rawValue: buffer[index] >> 5), accepted.contains(mt) else { return false }
        if mt.hasTwoByteLength { return true }
        if index + 1 < buffer.count, buffer[index + 1] & 0xC0 != 0 { return false }
        if index + 2 < buffer.count, buffer[index + 2] != 0 { return false }
        return true
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

    private mutating func packet(_ identity: Identity, more: Bool, payload: ArraySlice<UInt8>, _ emit: (Event) -> Void) {
        if let dropped = dropping {
            if dropped == identity {
                if !more { dropping = nil }
                return
            }
            dropping = nil
        }
        if var pending = segments {
            if pending.identity == identity {
                pending.payload.append(contentsOf: payload)
                if pending.payload.count > maximumMessageSize {
                    emit(.discarded(Discard(reason: .messageTooLarge, byteCount: pending.payload.count,
                                            sample: Array(pending.payload.prefix(16)))))
                    segments = nil
                    if more { dropping = identity }
                    return
                }
                if more {
                    segments = pending
                } else {
                    segments = nil
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
            segments = (identity, Array(payload))
        } else {
            emit(.message(RawMessage(messageType: identity.messageType, gid: identity.gid, oid: identity.oid,
                                     payload: Array(payload))))
        }
    }
}
