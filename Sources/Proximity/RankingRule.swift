import Vocabulary

/// Who is the intended target: peers scored and ordered best first (`rankings:` in the rules file),
/// so that a service can pick "the phone in front of the counter" instead of showing a list.
///
/// Candidates are the ranging peers the rule selects within ``within`` metres (default: no limit).
/// score = base score (``baseScores`` by peer name or address, default 0)
///       + ``nearbyBonus`` when within ``nearbyWithin``
///       + ``facingBonus`` when facing (only possible while direction is available).
/// Ties go to the nearer peer, then to the display name. Bonuses default to 0 and cannot be negative;
/// a `nearby_bonus` needs `nearby_within`.
public struct RankingRule: Hashable, Sendable {
    public var name: String
    public var peers: [PeerPattern]
    public var within: Double?
    /// Peer name or address notation → base score, in file order.
    public var baseScores: [BaseScore]
    public var nearbyWithin: Double?
    public var nearbyBonus: Double
    public var facingBonus: Double
    public var mark: SourceMark?
    public internal(set) var nameMark: SourceMark?

    /// One `base_scores` entry.
    public struct BaseScore: Hashable, Sendable {
        public var peer: String
        public var score: Double
        public init(peer: String, score: Double) {
            self.peer = peer
            self.score = score
        }
    }

    public init(name: String, peers: [PeerPattern] = PeerPattern.all, within: Double? = nil, baseScores: [BaseScore] = [],
                nearbyWithin: Double? = nil, nearbyBonus: Double = 0, facingBonus: Double = 0, mark: SourceMark? = nil) {
        self.name = name
        self.peers = peers
        self.within = within
        self.baseScores = baseScores
        self.nearbyWithin = nearbyWithin
        self.nearbyBonus = nearbyBonus
        self.facingBonus = facingBonus
        self.mark = mark
    }

    /// The base score of a peer: an entry naming it, else one with its address (case-insensitive), else 0.
    public func baseScore(of peer: PeerIdentity) -> Double {
        if let name = peer.name, let entry = baseScores.first(where: { $0.peer == name }) { return entry.score }
        let address = peer.address.description.lowercased()
        return baseScores.first { $0.peer.lowercased() == address }?.score ?? 0
    }
}

extension RankingRule: Decodable {
    enum CodingKeys: String, CodingKey {
        case name, peers, within, baseScores = "base_scores", nearbyWithin = "nearby_within"
        case nearbyBonus = "nearby_bonus", facingBonus = "facing_bonus"
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// `base_scores` keeps file order (a dictionary would not), and each score is checked where written.
    private struct OrderedScores: Decodable {
        var entries: [BaseScore]
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            let keys = c.allKeys
            let entryMarks: [SourceMark] = if case let .mapping(entries)? = SourceLocating.shape(of: decoder) { entries.map(\.mark) } else { [] }
            func mark(_ index: Int) -> SourceMark { entryMarks.indices.contains(index) ? entryMarks[index] : RulesDecoding.mark(of: decoder) }
            let limit = RulesBounds.baseScoresPerRanking
            if keys.count > limit {
                throw SourceError(at: mark(limit), "at most \(limit) base_scores entries are allowed, found \(keys.count) (this is the \(RulesDecoding.ordinal(limit + 1)))")
            }
            for (index, key) in keys.enumerated() where key.stringValue.unicodeScalars.count > RulesBounds.patternCharacters {
                throw SourceError(at: mark(index), "a base_scores key is a peer name or address of at most \(RulesBounds.patternCharacters) characters, "
                                + "this one has \(key.stringValue.unicodeScalars.count)")
            }
            entries = try keys.map { key in
                let score = try c.decode(Located<Double>.self, forKey: key)
                guard score.value.isFinite else { throw SourceError(at: score.mark, "a score must be a finite number") }
                return BaseScore(peer: key.stringValue, score: score.value)
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mark = SourceLocating.mark(of: decoder)
        (name, nameMark) = try RulesDecoding.name(c, .name)
        peers = try decodePeers(c, .peers)
        within = try c.decodeIfPresent(Distance.self, forKey: .within)?.meters
        baseScores = try c.decodeIfPresent(OrderedScores.self, forKey: .baseScores)?.entries ?? []
        nearbyWithin = try c.decodeIfPresent(Distance.self, forKey: .nearbyWithin)?.meters
        func bonus(_ key: CodingKeys) throws -> Located<Double>? {
            guard let value = try c.decodeIfPresent(Located<Double>.self, forKey: key) else { return nil }
            guard value.value >= 0, value.value.isFinite else {
                throw SourceError(at: value.mark, "\(key.rawValue) cannot be negative, found \(Distance.format(value.value))")
            }
            return value
        }
        let nearby = try bonus(.nearbyBonus)
        nearbyBonus = nearby?.value ?? 0
        facingBonus = try bonus(.facingBonus)?.value ?? 0
        if let nearby, nearby.value > 0, nearbyWithin == nil {
            throw SourceError(at: nearby.mark, "nearby_bonus needs nearby_within (the distance that earns it)", kind: .missingKey)
        }
    }
}

// MARK: - The kind

extension RankingRule: NamedRuleKind {
    public static let key = "rankings"
    public static let noun = "ranking"
    public static let events: [EventDeclaration] = []
    public static let maximumCount = RulesBounds.rankings

    public static func warnings(_ section: [RankingRule], for peers: [PeerIdentity]) -> [String] {
        section.flatMap { ranking in
            var out = RulesDecoding.unmatched(noun, ranking.name, ranking.peers, ranking.mark, peers: peers).map { [$0] } ?? []
            for entry in ranking.baseScores {
                let known = peers.contains { $0.name == entry.peer || $0.address.description.lowercased() == entry.peer.lowercased() }
                if !known {
                    out.append("\(RulesDecoding.prefix(ranking.mark))ranking \"\(ranking.name)\": base_scores names \"\(entry.peer)\", which is no configured peer")
                }
            }
            return out
        }
    }

    public static func tracking(in rules: Rules, for peer: inout PeerTracker) -> RankingTracking {
        RankingTracking.place(&peer, under: rules)
        return RankingTracking()
    }

    public static let schema = #"""
    "rankings": {
      "description": "Who is the intended target: scored candidates, best first; at most 16.",
      "type": "array",
      "maxItems": 16,
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["name"],
        "properties": {
          "name": {"$ref": "#/definitions/name"},
          "peers": {"$ref": "#/definitions/peers"},
          "within": {"description": "Candidates farther than this are left out.", "allOf": [{"$ref": "#/definitions/distance"}]},
          "base_scores": {
            "description": "Score per peer name or address (at most 64 characters), before bonuses; at most 64 entries.",
            "type": "object",
            "additionalProperties": {"type": "number"}
          },
          "nearby_within": {"description": "Distance that earns nearby_bonus.", "allOf": [{"$ref": "#/definitions/distance"}]},
          "nearby_bonus": {"description": "Added within nearby_within (which it needs).", "type": "number", "minimum": 0, "default": 0},
          "facing_bonus": {"description": "Added while facing; only where direction is available.", "type": "number", "minimum": 0, "default": 0}
        }
      }
    }
    """#
}

extension Rules {
    public var rankings: [RankingRule] {
        get { self[RankingRule.self] }
        set { self[RankingRule.self] = newValue }
    }
}

/// Rankings as one peer lives them: which ranking rules select it and its base score in each
/// (the peer's ``PeerTracker/rankings``). The ranking itself is across peers: the engine's,
/// after every round.
public struct RankingTracking: RuleTracking {
    /// Nothing in `state`: a ranking is published on its own topic.
    public static let stateProperties: [JSONSchema.Property] = []

    public func carriedOver(to rules: Rules, _ peer: inout PeerTracker, at time: Double,
                            into events: inout [ProximityEvent]) -> any RuleTracking {
        Self.place(&peer, under: rules)
        return self
    }

    static func place(_ peer: inout PeerTracker, under rules: Rules) {
        peer.rankings = rules.rankings.map { $0.peers.matches(peer.identity) ? $0.baseScore(of: peer.identity) : nil }
    }
}
