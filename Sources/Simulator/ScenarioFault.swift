import UCI

/// Something going wrong at a scenario time, so that the agent's recovery paths get exercised
/// against the same misbehaviour every run.
public struct ScenarioFault: Hashable, Sendable, Decodable {
    /// Scenario seconds at which the fault happens (or starts, for `split_writes`).
    public var at: Double
    public var kind: Kind

    public init(at: Double, _ kind: Kind) {
        self.at = at
        self.kind = kind
    }

    public enum Kind: Hashable, Sendable {
        /// `bytes` random bytes written between two packets. Only bytes whose MT bits name a
        /// message type a host never receives (see `isGarbageByte`), so a host that
        /// resynchronises on headers is tested on discarding noise, not on recovering from a
        /// forged header that swallows the next real packet.
        case garbage(bytes: Int)
        /// From `at` until `until`, every packet is written in pieces of 1…`maxChunk` bytes with
        /// `gap` seconds between them.
        case splitWrites(until: Double, maxChunk: Int, gap: Double)
        /// The module reboots on its own: DEVICE_STATUS_NTF(READY), every session is gone.
        case deviceReset
        /// DEVICE_STATUS_NTF(ERROR): ranging stops until the host resets the device.
        case deviceError
        /// The USB cable is pulled for `duration` seconds; the module powers off.
        case unplug(duration: Double)
        /// The firmware stops every active session by itself: SESSION_STATUS_NTF(IDLE, `reason`).
        case sessionStopped(reason: ReasonCode)

        /// The YAML `kind` value.
        public var name: String {
            switch self {
            case .garbage: "garbage"
            case .splitWrites: "split_writes"
            case .deviceReset: "device_reset"
            case .deviceError: "device_error"
            case .unplug: "unplug"
            case .sessionStopped: "session_stopped"
            }
        }
    }

    /// True for bytes whose MT (bits 7..5) is 1 (command), 4 (test command), 6 or 7: a host
    /// reading RSP (2), NTF (3), data (0) or test responses (5) skips them one by one.
    public static func isGarbageByte(_ byte: UInt8) -> Bool {
        switch byte >> 5 { case 1, 4, 6, 7: true; default: false }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case at, kind, bytes, until
        case maxChunk = "max_chunk"
        case gap, duration, reason
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        at = try c.decode(Double.self, forKey: .at)
        let name = try c.decode(String.self, forKey: .kind)
        switch name {
        case "garbage": kind = .garbage(bytes: try c.decodeIfPresent(Int.self, forKey: .bytes) ?? 16)
        case "split_writes":
            kind = .splitWrites(until: try c.decode(Double.self, forKey: .until),
                                maxChunk: try c.decodeIfPresent(Int.self, forKey: .maxChunk) ?? 3,
                                gap: try c.decodeIfPresent(Double.self, forKey: .gap) ?? 0.002)
        case "device_reset": kind = .deviceReset
        case "device_error": kind = .deviceError
        case "unplug": kind = .unplug(duration: try c.decodeIfPresent(Double.self, forKey: .duration) ?? 3)
        case "session_stopped":
            let reason = try c.decodeIfPresent(Int.self, forKey: .reason) ?? 0x01
            guard let byte = UInt8(exactly: reason) else {
                throw DecodingError.dataCorruptedError(forKey: .reason, in: c, debugDescription: "reason \(reason) is not a byte (0…255)")
            }
            kind = .sessionStopped(reason: ReasonCode(rawValue: byte))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: c,
                debugDescription: "unknown fault kind '\(name)' (expected garbage, split_writes, device_reset, device_error, unplug, session_stopped)")
        }
    }

    func validate(index: Int) throws(ScenarioError) {
        let field = "faults[\(index)]"
        guard at.isFinite else { throw .notFinite(field: field + ".at") }
        guard at >= 0 else { throw .outOfRange(field: field + ".at", value: at, expected: "≥ 0 seconds") }
        switch kind {
        case let .garbage(bytes):
            guard (1...4096).contains(bytes) else {
                throw .outOfRange(field: field + ".bytes", value: Double(bytes), expected: "1…4096")
            }
        case let .splitWrites(until, maxChunk, gap):
            guard until.isFinite else { throw .notFinite(field: field + ".until") }
            guard until >= at else { throw .invalidWindow(field: field, from: at, to: until) }
            guard (1...255).contains(maxChunk) else {
                throw .outOfRange(field: field + ".max_chunk", value: Double(maxChunk), expected: "1…255 bytes")
            }
            guard gap.isFinite, (0..<0.05).contains(gap) else {
                throw .outOfRange(field: field + ".gap", value: gap, expected: "0 ≤ gap < 0.05 s (the firmware flushes after 0.1 s)")
            }
        case let .unplug(duration):
            guard duration.isFinite, duration > 0 else {
                throw .outOfRange(field: field + ".duration", value: duration, expected: "> 0 seconds")
            }
        case .deviceReset, .deviceError, .sessionStopped: break
        }
    }
}
