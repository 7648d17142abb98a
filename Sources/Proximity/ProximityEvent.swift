import Vocabulary

/// A discrete transition of one peer (the `event` payload without its `id`, which the integrator adds).
///
/// `from` and `to` are what changed: `"outside"`/`"inside"` for zones, stage names or null, approach
/// phases, `true`/`false`/null for facing, link states for signal events, `"available"`/`"unavailable"`
/// for direction. Within one engine call events come in a fixed order: signal, direction, zones (in
/// rule order), stage, approaches (in rule order), facing — peers in configuration order.
public struct ProximityEvent: Hashable, Sendable {
    /// Seconds since the epoch: the measurement (or tick) that made the event final.
    public var ts: Double
    public var peer: PeerIdentity
    public var type: EventType
    /// The zone, approach or ranking name; the stage name is in `to`; nil for other events.
    public var rule: String?
    public var from: JSONValue
    public var to: JSONValue
    /// The filtered distance at `ts`; the last one known for signal_lost; nil when unknown.
    public var distanceM: Double?
    public var reason: EventReason
    /// A facing cue for facing_gained / facing_lost, else nil.
    public var cue: JSONValue?

    public init(ts: Double, peer: PeerIdentity, type: EventType, rule: String? = nil, from: JSONValue, to: JSONValue,
                distanceM: Double?, reason: EventReason = EventReason(), cue: JSONValue? = nil) {
        self.ts = ts
        self.peer = peer
        self.type = type
        self.rule = rule
        self.from = from
        self.to = to
        self.distanceM = distanceM
        self.reason = reason
        self.cue = cue
    }
}
