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
    var nameMark: SourceMark?

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

extension ApproachRule: RuleKind {
    public static let key = "approaches"
    public static let noun = "approach"
    public static let events: [EventDeclaration] = [
        EventDeclaration(.approachReady, .begins),
        EventDeclaration(.approachCompleted, .completes),
        EventDeclaration(.approachCanceled, .ends),
    ]

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
