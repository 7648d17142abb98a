/// The `reason` object of a site event, keys as in mqtt-api.md's event schema.
///
/// Zone events carry `threshold_m` (the hysteresis: metres inside the boundary to enter, outside to
/// leave), `dwell_ms` and `crossed_at`. `position_lost` carries `cause` and `last_seen` (the last
/// fix); `position_regained` carries `last_seen` too, so a consumer sees how long it was lost. A zone
/// left because the position was lost carries `cause: "position_lost"` instead of a threshold.
public struct SiteEventReason: Hashable, Sendable {
    public var thresholdM: Double?
    public var dwellMs: Int?
    /// Seconds.
    public var crossedAt: Double?
    public var cause: String?
    /// Seconds.
    public var lastSeen: Double?
}
