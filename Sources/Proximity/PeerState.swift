/// A snapshot of one peer: the `state` payload.
///
/// Angles are nil whenever direction is unavailable (never the last known angle); `distanceM` is nil
/// unless the link is ranging; `facing` is nil when it cannot be evaluated (no facing rule, no
/// direction, or no tolerance for the current stage).
public struct PeerState: Hashable, Sendable {
    public var ts: Double
    public var peer: PeerIdentity
    public var link: LinkState
    /// Why the link is lost; nil unless `link == .lost`. Not in the API payload; for logs.
    public var lossCause: LossCause?
    /// The filtered distance.
    public var distanceM: Double?
    /// Who measured the direction; nil while it is unavailable.
    public var directionSource: DirectionSource?
    public var directionAvailable: Bool { directionSource != nil }
    public var azimuthDeg: Double?
    public var elevationDeg: Double?
    /// Names of the zones the peer is in, in rule order.
    public var zones: [String]
    public var stage: String?
    /// Every approach rule that selects the peer, in rule order.
    public var approaches: [ApproachStatus]
    public var facing: Bool?

    /// One entry of `approaches`.
    public struct ApproachStatus: Hashable, Sendable {
        public var rule: String
        public var phase: ApproachPhase
        /// 0…1 between start_within and confirm_within; 0 when idle, 1 when completed.
        public var progress: Double
    }

    /// The fields whose change makes the integrator publish at once (everything but time, distance,
    /// angles and progress, which change with every measurement).
    public var discrete: Discrete {
        Discrete(link: link, directionSource: directionSource, zones: zones, stage: stage,
                 phases: approaches.map { Discrete.Phase(rule: $0.rule, phase: $0.phase) }, facing: facing)
    }

    public struct Discrete: Hashable, Sendable {
        var link: LinkState
        var directionSource: DirectionSource?
        var zones: [String]
        var stage: String?
        var phases: [Phase]
        var facing: Bool?

        /// An approach rule's phase, by rule name so that it carries over a rules reload.
        struct Phase: Hashable, Sendable {
            var rule: String
            var phase: ApproachPhase
        }
    }
}
