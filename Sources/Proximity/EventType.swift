/// The `type` of an event, exactly as spec/mqtt-api.md names it. Each rule kind declares its own
/// beside its rule type (`ZoneRule`: `zone_enter`, `zone_exit`) and lists them in its
/// ``RuleKind/events``; the engine's own (a peer's link and direction) are here.
public struct EventType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static let signalLost = EventType(rawValue: "signal_lost")
    public static let signalRegained = EventType(rawValue: "signal_regained")
    public static let directionAvailable = EventType(rawValue: "direction_available")
    public static let directionUnavailable = EventType(rawValue: "direction_unavailable")
}
