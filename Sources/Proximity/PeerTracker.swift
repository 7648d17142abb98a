import Vocabulary

/// Everything the engine remembers about one peer: link, filter, direction and per-rule state.
///
/// Rule state is kept in arrays parallel to the rules' lists; `nil` where a rule's `peers` do not
/// select this peer, so that every evaluation skips it without matching patterns again.
struct PeerTracker: Sendable {
    /// Timestamps are epoch seconds as doubles: 100.3 − 100.0 is 0.29999999999999716. Durations are
    /// compared with this slack (1 µs) so that a 300 ms dwell completes on the measurement 300 ms later.
    static let timeSlack = 1e-6

    struct ZoneTrack: Hashable, Sendable {
        var inside = false
        /// When the distance first crossed towards the other side; nil when no change is pending.
        var crossedAt: Double?
    }

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
    var zones: [ZoneTrack?]
    var stage: Int?
    var approaches: [ApproachPhase?]
    /// Per ranking rule, parallel to `rules.rankings`: this peer's base score, or nil where the rule's
    /// `peers` do not select it. Rankings are recomputed after every round; matching globs and
    /// looking up base scores by name each time cost more than the ranking itself.
    var rankings: [Double?]
    var facing: Bool?
    /// The discrete fields last reported, to publish state only on change.
    var reported: PeerState.Discrete?

    init(identity: PeerIdentity, rules: Rules) {
        self.identity = identity
        filter = DistanceFilter(rules.filter)
        zones = rules.zones.map { $0.peers.matches(identity) ? ZoneTrack() : nil }
        approaches = rules.approaches.map { $0.peers.matches(identity) ? .idle : nil }
        rankings = Self.rankings(of: identity, rules: rules)
    }

    /// The ``rankings`` entries of `identity` under `rules`.
    static func rankings(of identity: PeerIdentity, rules: Rules) -> [Double?] {
        rules.rankings.map { $0.peers.matches(identity) ? $0.baseScore(of: identity) : nil }
    }

    var directionAvailable: Bool { bearing != nil }

    func state(at time: Double, rules: Rules) -> PeerState {
        var lists = StateLists(distance: distance)
        visitRuleLists(&lists, rules: rules)
        return PeerState(
            ts: time, peer: identity, link: link, lossCause: link == .lost ? lossCause : nil,
            distanceM: link == .ranging ? distance : nil,
            directionSource: bearing?.source, azimuthDeg: bearing?.azimuthDeg, elevationDeg: bearing?.elevationDeg,
            zones: lists.zones, stage: stageName(rules: rules), approaches: lists.approaches, facing: facing)
    }

    /// The name of the current stage band: `state`'s `stage`.
    func stageName(rules: Rules) -> String? {
        stage.flatMap { i in rules.stages.flatMap { $0.bands.indices.contains(i) ? $0.bands[i].name : nil } }
    }

    /// An approach's `progress` in `phase` at `distance`: 0 idle, closeness while ready, 1 completed.
    static func progress(of rule: ApproachRule, in phase: ApproachPhase, at distance: Double?) -> Double {
        switch phase {
        case .idle: 0
        case .ready: distance.map(rule.progress(at:)) ?? 0
        case .completed: 1
        }
    }

    /// The progress of the first approach (in rule order) that is not idle: what `feedback` follows.
    func activeApproachProgress(rules: Rules) -> Double? {
        for (rule, phase) in zip(rules.approaches, approaches) {
            if let phase, phase != .idle { return Self.progress(of: rule, in: phase, at: distance) }
        }
        return nil
    }

    /// Whether `state(at:rules:).discrete` equals `reported`, worked out without building the state:
    /// the engine asks after every measurement, and the answer is nearly always yes. The rule
    /// lists are walked by the same ``visitRuleLists(_:rules:)`` that builds the state.
    func discreteMatches(_ reported: PeerState.Discrete, rules: Rules) -> Bool {
        guard reported.link == link, reported.directionSource == bearing?.source, reported.facing == facing,
              reported.stage == stageName(rules: rules) else { return false }
        var comparison = ListComparison(reported: reported)
        visitRuleLists(&comparison, rules: rules)
        return comparison.matchesSoFar && comparison.zoneIndex == reported.zones.count && comparison.phaseIndex == reported.phases.count
    }

    /// The rule lists of `state` (the zones the peer is in, every approach that selects it, in
    /// rule order), walked in this one place for both who need them: ``state(at:rules:)`` and
    /// ``discreteMatches(_:rules:)``.
    func visitRuleLists<Visitor: RuleListVisitor>(_ visitor: inout Visitor, rules: Rules) {
        for (rule, track) in zip(rules.zones, zones) where track?.inside == true { visitor.inside(rule) }
        for (rule, phase) in zip(rules.approaches, approaches) {
            if let phase { visitor.approach(rule, phase) }
        }
    }

    /// An event of this peer at `time`, with the current filtered distance.
    func event(_ type: EventType, at time: Double, rule: String? = nil, from: JSONValue, to: JSONValue,
               reason: EventReason = EventReason(), cue: JSONValue? = nil) -> ProximityEvent {
        ProximityEvent(ts: time, peer: identity, type: type, rule: rule, from: from, to: to, distanceM: distance,
                       reason: reason, cue: cue)
    }
}

extension PeerTracker {
    /// Since when the tag has been silent as far as signal loss goes: its last valid
    /// measurement, or the end of a silence excused since.
    var silentSince: Double? {
        guard let lastValid else { return nil }
        return max(lastValid, excusedUntil ?? lastValid)
    }

    /// The earliest time at which a tick changes this peer: its link lost to silence, its angle
    /// aged past `max_age`, a zone's pending dwell completed. Each is a time at which the tick's
    /// own test passes (its slack is on the safe side), so a tick at the deadline acts and the
    /// next deadline is later.
    func nextDeadline(rules: Rules) -> Double? {
        guard link == .ranging, let silent = silentSince else { return nil }
        var earliest = silent + rules.signalLostAfter
        if let bearing { earliest = min(earliest, bearing.at + rules.direction.maxAge + 2 * Self.timeSlack) }
        for (i, rule) in rules.zones.enumerated() {
            if let crossedAt = zones[i]?.crossedAt { earliest = min(earliest, crossedAt + rule.dwell) }
        }
        return earliest
    }
}

/// Who walks `state`'s rule lists with ``PeerTracker/visitRuleLists(_:rules:)``.
protocol RuleListVisitor {
    mutating func inside(_ zone: ZoneRule)
    mutating func approach(_ rule: ApproachRule, _ phase: ApproachPhase)
}

/// Builds `state`'s lists.
private struct StateLists: RuleListVisitor {
    let distance: Double?
    var zones: [String] = []
    var approaches: [PeerState.ApproachStatus] = []

    init(distance: Double?) { self.distance = distance }

    mutating func inside(_ zone: ZoneRule) { zones.append(zone.name) }

    mutating func approach(_ rule: ApproachRule, _ phase: ApproachPhase) {
        approaches.append(.init(rule: rule.name, phase: phase, progress: PeerTracker.progress(of: rule, in: phase, at: distance)))
    }
}

/// Compares `state`'s lists, as they are walked, with those last reported.
private struct ListComparison: RuleListVisitor {
    let reported: PeerState.Discrete
    var zoneIndex = 0
    var phaseIndex = 0
    var matchesSoFar = true

    mutating func inside(_ zone: ZoneRule) {
        if matchesSoFar, zoneIndex < reported.zones.count, reported.zones[zoneIndex] == zone.name {
            zoneIndex += 1
        } else {
            matchesSoFar = false
        }
    }

    mutating func approach(_ rule: ApproachRule, _ phase: ApproachPhase) {
        if matchesSoFar, phaseIndex < reported.phases.count, reported.phases[phaseIndex] == .init(rule: rule.name, phase: phase) {
            phaseIndex += 1
        } else {
            matchesSoFar = false
        }
    }
}
