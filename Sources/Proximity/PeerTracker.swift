import Vocabulary

/// Everything the engine remembers about one peer: link, filter, direction, and what each rule
/// kind keeps of it (``trackings``, one per kind in table order).
///
/// Public only because rule kinds' trackings are handed it; what it holds is the engine's own.
public struct PeerTracker: Sendable {
    /// Timestamps are epoch seconds as doubles: 100.3 − 100.0 is 0.29999999999999716. Durations are
    /// compared with this slack (1 µs) so that a 300 ms dwell completes on the measurement 300 ms later.
    static let timeSlack = 1e-6

    /// A fresh, usable angle: the device's angle of arrival, or the angle at which the phone sees
    /// the gateway (azimuth 0 straight ahead, positive to the right; elevation positive above).
    struct Bearing: Hashable, Sendable {
        var azimuthDeg: Double
        /// The device's figures of merit; 0 for a phone's angle, which has none.
        var azimuthFOM: Int
        /// Nil when the elevation's FOM is below `min_fom`, or the phone reported none.
        var elevationDeg: Double?
        var elevationFOM: Int
        /// When it was measured: the measurement's time, or the phone's report's `ts`.
        var at: Double
        var source: DirectionSource = .gateway

        /// Whether the peer faces the gateway within `tolerance` degrees. A device's angle of
        /// arrival says where the peer is, not where it points, so only its azimuth counts; a
        /// phone's angle is where it points, and it points at the gateway when both its azimuth
        /// and (where it measured one) its elevation are within the tolerance.
        func faces(within tolerance: Double) -> Bool {
            guard abs(azimuthDeg) <= tolerance else { return false }
            guard source == .phone, let elevationDeg else { return true }
            return abs(elevationDeg) <= tolerance
        }
    }

    var identity: PeerIdentity
    var filter: DistanceFilter
    var link: LinkState = .connecting
    var lossCause: LossCause?
    /// Time of the last valid measurement.
    var lastValid: Double?
    /// The agent itself did not run until this time (a stall, a step of the system clock): the
    /// silence before it is not the tag's, so it does not count towards `signal_lost_after`.
    var excusedUntil: Double?
    /// Time of the last failed measurement.
    var lastFailure: Double?
    /// Filtered distance; nil unless ranging.
    var distance: Double?
    /// The direction in use (see `PeerTracker+Direction`): nil while it is unavailable.
    var bearing: Bearing?
    /// The phone's latest reported angle, kept even while the device's own angle is in use: it
    /// takes over when that one goes, if it is still fresh.
    var phoneBearing: Bearing?

    // What rule kinds work out and others read: each written by one kind only.
    /// The stage band's index (`StageRules`): facing's tolerance and `feedback` follow it.
    var stage: Int?
    /// Whether the peer faces the gateway (`FacingRule`): rankings' facing bonus, `feedback`.
    var facing: Bool?
    /// The progress of the first approach (in rule order) that is not idle (`ApproachRule`),
    /// after the last measurement: what `feedback` follows.
    var approachProgress: Double?
    /// Per ranking rule, parallel to the rules' `rankings` (`RankingRule`): this peer's base
    /// score, or nil where the rule's `peers` do not select it. Rankings are recomputed after
    /// every round; matching globs and looking up base scores by name each time cost more than
    /// the ranking itself.
    var rankings: [Double?] = []

    /// Each rule kind's tracking, in table order.
    var trackings: [any RuleTracking] = []
    /// The discrete fields last reported, to publish state only on change.
    var reported: PeerState.Discrete?
    /// When the state was last output: a measurement outputs it again, changed or not, once
    /// ``ProximityEngine/stateRepeatInterval`` has passed since.
    var reportedAt = -Double.infinity

    init(identity: PeerIdentity, rules: Rules) {
        self.identity = identity
        filter = DistanceFilter(rules.filter)
        var made: [any RuleTracking] = []
        made.reserveCapacity(RuleKinds.all.count)
        for kind in RuleKinds.all { made.append(Self.tracking(of: kind, in: rules, for: &self)) }
        trackings = made
    }

    private static func tracking<Kind: RuleKind>(of kind: Kind.Type, in rules: Rules, for peer: inout PeerTracker) -> any RuleTracking {
        Kind.tracking(in: rules, for: &peer)
    }

    /// Runs `step` on every kind's tracking in table order, with the tracker: the trackings are
    /// taken out for it, so that each changes in place and may change the tracker too.
    mutating func eachTracking(_ step: (inout any RuleTracking, inout PeerTracker) -> Void) {
        var trackings = self.trackings
        self.trackings = []
        for index in trackings.indices { step(&trackings[index], &self) }
        self.trackings = trackings
    }

    var directionAvailable: Bool { bearing != nil }

    func state(at time: Double) -> PeerState {
        var script = StateScript()
        for index in trackings.indices { trackings[index].describe(self, into: &script) }
        return PeerState(
            ts: time, peer: identity, link: link, lossCause: link == .lost ? lossCause : nil,
            distanceM: link == .ranging ? distance : nil,
            directionSource: bearing?.source, azimuthDeg: bearing?.azimuthDeg, elevationDeg: bearing?.elevationDeg,
            script: script)
    }

    /// Whether `state(at:).discrete` equals `reported`, worked out without building the state:
    /// the engine asks after every measurement, and the answer is nearly always yes. The kinds
    /// write their parts through the same ``RuleTracking/describe(_:into:)`` that builds the state.
    func discreteMatches(_ reported: PeerState.Discrete) -> Bool {
        guard reported.link == link, reported.directionSource == bearing?.source else { return false }
        var comparison = StateComparison(reported: reported.rules)
        // By index: `for tracking in trackings` would copy each existential out of the array.
        for index in trackings.indices { trackings[index].compare(self, with: &comparison) }
        return comparison.matches
    }

    /// An event of this peer at `time`, with the current filtered distance.
    func event(_ type: EventType, at time: Double, rule: String? = nil, from: JSONValue, to: JSONValue,
               reason: EventReason = EventReason(), cue: JSONValue? = nil) -> ProximityEvent {
        ProximityEvent(ts: time, peer: identity, type: type, rule: rule, from: from, to: to, distanceM: distance,
                       reason: reason, cue: cue)
    }
}

extension PeerTracker {
    /// What of the rules ``nextDeadline(_:)`` follows, besides the trackings' own deadlines: the
    /// table that keeps each tracker's deadline is handed these two numbers, not the whole rules.
    struct Timeouts: Sendable {
        var signalLostAfter: Double
        var angleMaxAge: Double

        init(_ rules: Rules) {
            signalLostAfter = rules.signalLostAfter
            angleMaxAge = rules.direction.maxAge
        }
    }

    /// Since when the tag has been silent as far as signal loss goes: its last valid
    /// measurement, or the end of a silence excused since.
    var silentSince: Double? {
        guard let lastValid else { return nil }
        return max(lastValid, excusedUntil ?? lastValid)
    }

    /// The earliest time at which a tick changes this peer: its link lost to silence, its angle
    /// aged past `max_age`, a rule's own deadline (a zone's pending dwell). Each is a time at
    /// which the tick's own test passes (its slack is on the safe side), so a tick at the
    /// deadline acts and the next deadline is later.
    func nextDeadline(_ timeouts: Timeouts) -> Double? {
        guard link == .ranging, let silent = silentSince else { return nil }
        var earliest = silent + timeouts.signalLostAfter
        if let bearing { earliest = min(earliest, bearing.at + timeouts.angleMaxAge + 2 * Self.timeSlack) }
        for index in trackings.indices {
            if let deadline = trackings[index].deadline { earliest = min(earliest, deadline) }
        }
        return earliest
    }
}
