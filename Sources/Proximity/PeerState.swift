import Vocabulary

/// A snapshot of one peer: the `state` payload.
///
/// Angles are nil whenever direction is unavailable (never the last known angle); `distanceM` is nil
/// unless the link is ranging. What the rules say of the peer (its zones, stage, approaches,
/// facing) is ``rules``: each kind's members in table order, as the kind wrote them
/// (``RuleTracking/describe(_:into:)``); each kind reads its own back (``zones``, ``stage``, …).
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
    /// What the rule kinds wrote of `state`, in table order.
    var script: StateScript

    /// The rule kinds' members of `state`, in table order, as a tree (built on each call).
    public var rules: [JSONMember] { script.members }

    /// Writes the rule kinds' members into the `state` object `json` is writing.
    public func writeRules(into json: inout JSONBytes) { script.write(into: &json) }

    /// The value of the rule kinds' member `key`, nil when no kind wrote it.
    public func rule(_ key: PayloadKey) -> JSONValue? {
        rules.first { $0.key == key.text }?.value
    }

    /// The fields whose change makes the integrator publish at once (everything but time, distance,
    /// angles and continuous numbers such as progress, which change with every measurement).
    public var discrete: Discrete {
        Discrete(link: link, directionSource: directionSource, rules: script.discrete)
    }

    public struct Discrete: Hashable, Sendable {
        var link: LinkState
        var directionSource: DirectionSource?
        var rules: [StateScript.DiscreteToken]
    }
}
