/// The simulated module's hardware properties, and how its firmware times what it reports.
///
/// `aoa` decides whether angles can ever be reported: a DWM3001C has one antenna, so the
/// default scenario says `false` and every AoA field stays 0 with FOM 0 (uci.md §5.3), which
/// is how the agent learns that direction rules are inactive.
public struct ScenarioDevice: Hashable, Sendable, Decodable {
    /// Two-antenna module that measures angles (GET_CAPS AOA_SUPPORT ≠ 0).
    public var hasAoA: Bool
    /// Seconds between ranging rounds regardless of RANGING_DURATION, for scenarios that want
    /// a device whose real cadence differs from what the host asked for; nil = obey the host.
    public var rangingInterval: Double?
    /// Status notifications (DEVICE_STATUS_NTF, SESSION_STATUS_NTF) caused by a command arrive
    /// this long after its response, drawn uniformly from the range (seconds). Real firmware and
    /// USB stacks do not promise that a notification shares a read with the response before it.
    public var statusDelay: ClosedRange<Double>?
    /// Status notifications caused by a command come in any order, some before its response.
    public var statusReorder: Bool
    /// Sessions the firmware holds at once; one more gets ERROR_MAX_SESSIONS_EXCEEDED. Five by
    /// default; 1 is a firmware that cannot run a phone's session beside the tags'.
    public var maxSessions: Int

    public init(hasAoA: Bool = false, rangingInterval: Double? = nil, statusDelay: ClosedRange<Double>? = nil,
                statusReorder: Bool = false, maxSessions: Int = 5) {
        self.hasAoA = hasAoA
        self.rangingInterval = rangingInterval
        self.statusDelay = statusDelay
        self.statusReorder = statusReorder
        self.maxSessions = maxSessions
    }

    /// True when status notifications are not simply written right after their response.
    var holdsStatusNotifications: Bool { statusDelay != nil || statusReorder }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case hasAoA = "aoa"
        case rangingInterval = "ranging_interval"
        case statusDelay = "status_delay_ms"
        case statusReorder = "status_reorder"
        case maxSessions = "max_sessions"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hasAoA = try c.decodeIfPresent(Bool.self, forKey: .hasAoA) ?? false
        rangingInterval = try c.decodeIfPresent(Double.self, forKey: .rangingInterval)
        statusReorder = try c.decodeIfPresent(Bool.self, forKey: .statusReorder) ?? false
        maxSessions = try c.decodeIfPresent(Int.self, forKey: .maxSessions) ?? 5
        // One number (a fixed delay) or [least, most], in milliseconds.
        if let fixed = try? c.decodeIfPresent(Double.self, forKey: .statusDelay) {
            statusDelay = fixed / 1000...fixed / 1000
        } else if let pair = try c.decodeIfPresent([Double].self, forKey: .statusDelay) {
            guard pair.count == 2, pair[0] <= pair[1] else {
                throw DecodingError.dataCorruptedError(forKey: .statusDelay, in: c,
                                                       debugDescription: "give one delay or [least, most] in milliseconds, least first")
            }
            statusDelay = pair[0] / 1000...pair[1] / 1000
        } else {
            statusDelay = nil
        }
    }

    func validate() throws(ScenarioError) {
        guard (1...16).contains(maxSessions) else {
            throw .outOfRange(field: "device.max_sessions", value: Double(maxSessions), expected: "1…16")
        }
        if let interval = rangingInterval {
            guard interval.isFinite else { throw .notFinite(field: "device.ranging_interval") }
            guard interval >= 0.001 else {
                throw .outOfRange(field: "device.ranging_interval", value: interval, expected: "≥ 0.001 seconds")
            }
        }
        if let delay = statusDelay {
            for bound in [delay.lowerBound, delay.upperBound] {
                guard bound.isFinite else { throw .notFinite(field: "device.status_delay_ms") }
                guard (0...1).contains(bound) else {
                    throw .outOfRange(field: "device.status_delay_ms", value: bound * 1000, expected: "0…1000 ms")
                }
            }
        }
    }
}
