import Vocabulary

/// Approach-to-confirm: moving in confirms, moving away cancels — no button.
///
/// Inside ``startWithin`` the approach is ready and its progress runs 0 → 1 towards ``confirmWithin``;
/// at or below ``confirmWithin`` it completes (once, until the peer leaves beyond ``startWithin``);
/// beyond ``cancelBeyond`` before completion it cancels. All three thresholds are required, with
/// `cancel_beyond > start_within > confirm_within` so that a ready peer has room to hesitate.
public struct ApproachRule: Hashable, Sendable {
    public var name: String
    public var peers: [PeerPattern]
    public var startWithin: Double
    public var confirmWithin: Double
    public var cancelBeyond: Double
    public var mark: SourceMark?
    public internal(set) var nameMark: SourceMark?

    public init(name: String, peers: [PeerPattern] = PeerPattern.all, startWithin: Double, confirmWithin: Double,
                cancelBeyond: Double, mark: SourceMark? = nil) {
        self.name = name
        self.peers = peers
        self.startWithin = startWithin
        self.confirmWithin = confirmWithin
        self.cancelBeyond = cancelBeyond
        self.mark = mark
    }

    /// 0 at `start_within`, 1 at `confirm_within`, clamped.
    public func progress(at distance: Double) -> Double {
        let span = startWithin - confirmWithin
        guard span > 0 else { return distance <= confirmWithin ? 1 : 0 }
        return min(1, max(0, (startWithin - distance) / span))
    }
}

extension ApproachRule: Decodable {
    enum CodingKeys: String, CodingKey {
        case name, peers, startWithin = "start_within", confirmWithin = "confirm_within", cancelBeyond = "cancel_beyond"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mark = SourceLocating.mark(of: decoder)
        (name, nameMark) = try RulesDecoding.name(c, .name)
        peers = try decodePeers(c, .peers)
        let start = try c.decode(Located<Distance>.self, forKey: .startWithin)
        let confirm = try c.decode(Located<Distance>.self, forKey: .confirmWithin)
        let cancel = try c.decode(Located<Distance>.self, forKey: .cancelBeyond)
        guard start.value > confirm.value else {
            throw SourceError(at: confirm.mark, "confirm_within (\(confirm.value)) must be less than start_within (\(start.value))")
        }
        guard cancel.value > start.value else {
            throw SourceError(at: cancel.mark, "cancel_beyond (\(cancel.value)) must be greater than start_within (\(start.value))")
        }
        startWithin = start.value.meters
        confirmWithin = confirm.value.meters
        cancelBeyond = cancel.value.meters
    }
}

// MARK: - The kind

extension EventType {
    public static let approachReady = EventType(rawValue: "approach_ready")
    public static let approachCompleted = EventType(rawValue: "approach_completed")
    public static let approachCanceled = EventType(rawValue: "approach_canceled")
}

extension ApproachRule: NamedRuleKind {
    public static let key = "approaches"
    public static let noun = "approach"
    public static let events: [EventDeclaration] = [
        EventDeclaration(.approachReady, .begins),
        EventDeclaration(.approachCompleted, .completes),
        EventDeclaration(.approachCanceled, .ends),
    ]
    public static let maximumCount = RulesBounds.approaches

    public static func tracking(in rules: Rules, for peer: inout PeerTracker) -> ApproachTracking {
        ApproachTracking(rules: rules.approaches, identity: peer.identity)
    }

    public static func thresholds(in rules: Rules) -> [RuleDistance] {
        rules.approaches.flatMap { approach in
            [RuleDistance(rule: approach.name, kind: "start", metres: approach.startWithin, peers: approach.peers),
             RuleDistance(rule: approach.name, kind: "confirm", metres: approach.confirmWithin, peers: approach.peers),
             RuleDistance(rule: approach.name, kind: "cancel", metres: approach.cancelBeyond, peers: approach.peers)]
        }
    }

    /// The start … cancel band, and the confirm line.
    public static func bands(in rules: Rules) -> [RuleBand] {
        rules.approaches.flatMap { approach in
            [RuleBand(name: "approach \(approach.name) start", low: approach.startWithin, high: approach.cancelBeyond, peers: approach.peers),
             RuleBand(name: "approach \(approach.name) confirm", low: approach.confirmWithin, high: approach.confirmWithin, peers: approach.peers)]
        }
    }

    public static let schema = #"""
    "approaches": {
      "description": "Approach-to-confirm: moving in confirms, moving away cancels; at most 32.",
      "type": "array",
      "maxItems": 32,
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "start_within", "confirm_within", "cancel_beyond"],
        "properties": {
          "name": {"$ref": "#/definitions/name"},
          "peers": {"$ref": "#/definitions/peers"},
          "start_within": {"description": "Phase ready: progress runs 0 → 1 between start and confirm.", "allOf": [{"$ref": "#/definitions/distance"}]},
          "confirm_within": {"description": "Phase completed (fires once until the peer leaves beyond start); less than start_within.", "allOf": [{"$ref": "#/definitions/distance"}]},
          "cancel_beyond": {"description": "Leaving beyond this before completion: approach_canceled; greater than start_within.", "allOf": [{"$ref": "#/definitions/distance"}]}
        }
      }
    }
    """#
}

extension Rules {
    public var approaches: [ApproachRule] {
        get { self[ApproachRule.self] }
        set { self[ApproachRule.self] = newValue }
    }
}

extension PeerState {
    /// One entry of `approaches`.
    public struct ApproachStatus: Hashable, Sendable {
        public var rule: String
        public var phase: ApproachPhase
        /// 0…1 between start_within and confirm_within; 0 when idle, 1 when completed.
        public var progress: Double
    }

    /// Every approach rule that selects the peer, in rule order.
    public var approaches: [ApproachStatus] {
        guard case let .object(rules)? = rule(.approaches) else { return [] }
        return rules.compactMap { member in
            guard case let .object(fields) = member.value,
                  case let .string(phase)? = fields.first(where: { $0.key == PayloadKey.phase.text })?.value,
                  let parsed = ApproachPhase(rawValue: phase),
                  let progress = fields.first(where: { $0.key == PayloadKey.progress.text })?.value.number else { return nil }
            return ApproachStatus(rule: member.key, phase: parsed, progress: progress)
        }
    }
}

/// Approaches as one peer lives them: the phase of each approach rule that selects it. The
/// progress of the first one under way is the peer's ``PeerTracker/approachProgress``, which
/// `feedback` follows.
public struct ApproachTracking: RuleTracking {
    let rules: [ApproachRule]
    /// Parallel to ``rules``; nil where a rule's `peers` do not select the peer.
    var phases: [ApproachPhase?]

    init(rules: [ApproachRule], identity: PeerIdentity) {
        self.rules = rules
        phases = rules.map { $0.peers.matches(identity) ? .idle : nil }
    }

    public mutating func evaluate(_ peer: inout PeerTracker, at time: Double, measured: Bool, into events: inout [ProximityEvent]) {
        guard measured, let d = peer.distance else { return }
        // By index, each rule read where it is: `for rule in rules` would copy every rule (a
        // retain of each of its strings) at every measurement.
        for i in rules.indices {
            guard let phase = phases[i] else { continue }
            var next = phase
            if next == .idle, d <= rules[i].startWithin {
                next = .ready
                events.append(peer.event(.approachReady, at: time, rule: rules[i].name, from: "idle", to: "ready",
                                         reason: EventReason(thresholdM: rules[i].startWithin, crossedAt: time)))
            }
            if next == .ready, d <= rules[i].confirmWithin {
                next = .completed
                events.append(peer.event(.approachCompleted, at: time, rule: rules[i].name, from: "ready", to: "completed",
                                         reason: EventReason(thresholdM: rules[i].confirmWithin, crossedAt: time)))
            } else if next == .ready, d > rules[i].cancelBeyond {
                next = .idle
                events.append(peer.event(.approachCanceled, at: time, rule: rules[i].name, from: "ready", to: "idle",
                                         reason: EventReason(thresholdM: rules[i].cancelBeyond, crossedAt: time)))
            } else if next == .completed, d > rules[i].startWithin {
                next = .idle  // re-armed: a new approach can complete
            }
            if next != phase { phases[i] = next }
        }
        peer.approachProgress = activeProgress(at: d)
    }

    public mutating func lose(_ peer: inout PeerTracker, reason: EventReason, at time: Double, into events: inout [ProximityEvent]) {
        for (i, rule) in rules.enumerated() {
            guard let phase = phases[i] else { continue }
            if phase == .ready {
                events.append(peer.event(.approachCanceled, at: time, rule: rule.name, from: "ready", to: "idle", reason: reason))
            }
            phases[i] = .idle
        }
        peer.approachProgress = nil
    }

    /// Phases carry over by rule name; a ready approach whose rule went (or no longer selects
    /// the peer) ends with `approach_canceled`.
    public func carriedOver(to rules: Rules, _ peer: inout PeerTracker, at time: Double,
                            into events: inout [ProximityEvent]) -> any RuleTracking {
        var next = ApproachTracking(rules: rules.approaches, identity: peer.identity)
        for (i, rule) in self.rules.enumerated() {
            guard let phase = phases[i], phase != .idle else { continue }
            if let j = next.rules.firstIndex(where: { $0.name == rule.name }), next.phases[j] != nil {
                next.phases[j] = phase
            } else if phase == .ready {
                events.append(peer.event(.approachCanceled, at: time, rule: rule.name, from: "ready", to: "idle",
                                         reason: .because(.rulesChanged)))
            }
        }
        return next
    }

    public static let stateProperties = [JSONSchema.Property(.approaches, JSONSchema.map(of: .object([
        .init(.phase, .enumeration(ApproachPhase.allCases.map(\.rawValue))),
        .init(.progress, JSONSchema.number.minimum(0).maximum(1)),
    ])).described("every approach rule that selects the peer, by name"))]

    /// `approaches`: every approach rule that selects the peer, with its phase and progress.
    public func describe<Writer: PeerStateWriter>(_ peer: PeerTracker, into writer: inout Writer) {
        writer.member(.approaches)
        writer.beginObject()
        for i in rules.indices {
            guard let phase = phases[i] else { continue }
            writer.member(rules[i].name)
            writer.beginObject()
            writer.member(.phase)
            writer.string(phase.rawValue)
            writer.member(.progress)
            writer.continuous(Self.progress(of: rules[i], in: phase, at: peer.distance))
            writer.end()
        }
        writer.end()
    }

    /// An approach's `progress` in `phase` at `distance`: 0 idle, closeness while ready, 1 completed.
    static func progress(of rule: ApproachRule, in phase: ApproachPhase, at distance: Double?) -> Double {
        switch phase {
        case .idle: 0
        case .ready: distance.map(rule.progress(at:)) ?? 0
        case .completed: 1
        }
    }

    /// The progress of the first approach (in rule order) that is not idle.
    private func activeProgress(at distance: Double) -> Double? {
        for i in rules.indices {
            if let phase = phases[i], phase != .idle { return Self.progress(of: rules[i], in: phase, at: distance) }
        }
        return nil
    }
}
