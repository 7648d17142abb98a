import Vocabulary

/// One kind's rules as one peer lives them: which of them select the peer, where the peer stands
/// with each, and how that changes. The peer's tracker holds one per kind, in table order
/// (``RuleKinds/all``), and hands each the peer (``PeerTracker``: its link, filtered distance,
/// direction, and the facts kinds share: the stage band, facing, ranking base scores, the active
/// approach's progress) at every step; events are appended in that order.
///
/// Every step but ``carriedOver(to:_:at:into:)`` has a default that does nothing, so that a kind
/// writes only the steps it takes part in.
public protocol RuleTracking: Sendable {
    /// A valid measurement (`measured`), or a tick (only pending dwells may complete: the
    /// distance is the last measured one). Called only while the peer ranges with a distance.
    mutating func evaluate(_ peer: inout PeerTracker, at time: Double, measured: Bool, into events: inout [ProximityEvent])
    /// The peer's direction changed outside a measurement: an angle aged out on a tick, or a
    /// phone's report came.
    mutating func directionChanged(_ peer: inout PeerTracker, at time: Double, into events: inout [ProximityEvent])
    /// The link was lost: everything ends, each with its event and `reason`.
    mutating func lose(_ peer: inout PeerTracker, reason: EventReason, at time: Double, into events: inout [ProximityEvent])
    /// The rules were replaced by `rules`: this kind's tracking under them, carried over by rule
    /// name, with an event for what ends because its rule went (reason `rules_changed`). The
    /// engine evaluates every ranging peer against the new rules afterwards.
    func carriedOver(to rules: Rules, _ peer: inout PeerTracker, at time: Double, into events: inout [ProximityEvent]) -> any RuleTracking
    /// The earliest time at which a tick changes it (a zone's dwell), if any.
    var deadline: Double? { get }
    /// Its part of the peer's `state`: the members it adds, in its order.
    func describe<Writer: PeerStateWriter>(_ peer: PeerTracker, into writer: inout Writer)
    /// ``describe(_:into:)`` into a comparison with the state last published: a requirement of
    /// its own (kinds keep the default), so that each kind's describing is compiled for the
    /// comparison, which the engine runs after every measurement, instead of going through the
    /// writer protocol value by value.
    func compare(_ peer: PeerTracker, with comparison: inout StateComparison)
    /// The schema of what ``describe(_:into:)`` writes, member by member in the same order: the
    /// AsyncAPI document's `state` has it (no default, so that a kind that writes says what).
    static var stateProperties: [JSONSchema.Property] { get }
}

extension RuleTracking {
    public mutating func evaluate(_ peer: inout PeerTracker, at time: Double, measured: Bool, into events: inout [ProximityEvent]) {}
    public mutating func directionChanged(_ peer: inout PeerTracker, at time: Double, into events: inout [ProximityEvent]) {}
    public mutating func lose(_ peer: inout PeerTracker, reason: EventReason, at time: Double, into events: inout [ProximityEvent]) {}
    public var deadline: Double? { nil }
    public func describe<Writer: PeerStateWriter>(_ peer: PeerTracker, into writer: inout Writer) {}
    public func compare(_ peer: PeerTracker, with comparison: inout StateComparison) {
        describe(peer, into: &comparison)
    }
}
