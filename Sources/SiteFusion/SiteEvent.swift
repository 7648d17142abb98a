/// A discrete transition of one peer's site state: the `event` payload of
/// `<base>/site/<site>/peer/<peer>/event` without its `id` (the service adds it).
public struct SiteEvent: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case zoneEnter = "zone_enter"
        case zoneExit = "zone_exit"
        case positionLost = "position_lost"
        case positionRegained = "position_regained"
    }

    /// Seconds: the position that completed a dwell, the moment a dwell ran out on a tick, or the
    /// moment `position_lost_after` ran out since the last fix.
    public var ts: Double
    public var peer: String
    public var type: Kind
    /// The zone's name for zone events (the payload's `rule`), else nil.
    public var zone: String?
    /// `"outside"`/`"inside"` for zones, `"available"`/`"lost"` for the position.
    public var from: String
    public var to: String
    public var reason: SiteEventReason
}
