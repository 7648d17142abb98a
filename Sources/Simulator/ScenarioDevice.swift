/// The simulated module's hardware properties.
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

    public init(hasAoA: Bool = false, rangingInterval: Double? = nil) {
        self.hasAoA = hasAoA
        self.rangingInterval = rangingInterval
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case hasAoA = "aoa"
        case rangingInterval = "ranging_interval"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hasAoA = try c.decodeIfPresent(Bool.self, forKey: .hasAoA) ?? false
        rangingInterval = try c.decodeIfPresent(Double.self, forKey: .rangingInterval)
    }
}
