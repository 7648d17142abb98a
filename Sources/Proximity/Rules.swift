import Vocabulary

/// A validated rules file, version 1 (spec/rules.md): how distances are filtered and which zones,
/// stages, approaches, facing and rankings turn them into state and events.
///
/// Read one from a file with `RulesFile.load(text:file:)` (RulesReading); build one in code with ``init(filter:signalLostAfter:direction:zones:stages:approaches:facing:rankings:)``.
/// Defaults for absent keys: `filter` kalman / max_speed 3 m/s, `signal_lost_after` 2 s,
/// `direction` min_fom 50 / max_age 500 ms, no zones, stages, approaches, facing or rankings.
public struct Rules: Hashable, Sendable {
    public var filter: FilterSettings
    /// Seconds without a valid measurement after which a peer's link is lost.
    public var signalLostAfter: Double
    public var direction: DirectionSettings
    public var zones: [ZoneRule]
    public var stages: StageRules?
    public var approaches: [ApproachRule]
    public var facing: FacingRule?
    public var rankings: [RankingRule]
    /// Hex SHA-256 of the file's bytes; empty for rules built in code.
    public var sha256: String = ""

    public init(filter: FilterSettings = FilterSettings(), signalLostAfter: Double = 2,
                direction: DirectionSettings = DirectionSettings(), zones: [ZoneRule] = [], stages: StageRules? = nil,
                approaches: [ApproachRule] = [], facing: FacingRule? = nil, rankings: [RankingRule] = []) {
        self.filter = filter
        self.signalLostAfter = signalLostAfter
        self.direction = direction
        self.zones = zones
        self.stages = stages
        self.approaches = approaches
        self.facing = facing
        self.rankings = rankings
    }

    /// Patterns a warning names before it counts the rest: a rule may list 64.
    static let patternsNamedInAWarning = 4

    /// One line per rule (and per `base_scores` entry) that selects none of `peers`, prefixed with its
    /// place in the file. Allowed, because peers come and go, but worth telling the rule editor.
    public func warnings(for peers: [PeerIdentity]) -> [String] {
        var out: [String] = []
        func check(_ kind: String, _ name: String, _ patterns: [PeerPattern], _ mark: SourceMark?) {
            if !peers.contains(where: { patterns.matches($0) }) {
                var list = patterns.prefix(Self.patternsNamedInAWarning).map { "\"\($0)\"" }.joined(separator: ", ")
                if patterns.count > Self.patternsNamedInAWarning { list += ", … \(patterns.count - Self.patternsNamedInAWarning) more" }
                out.append("\(RulesDecoding.prefix(mark))\(kind) \"\(name)\": peers [\(list)] match no configured peer")
            }
        }
        for zone in zones { check("zone", zone.name, zone.peers, zone.mark) }
        for approach in approaches { check("approach", approach.name, approach.peers, approach.mark) }
        for ranking in rankings {
            check("ranking", ranking.name, ranking.peers, ranking.mark)
            for entry in ranking.baseScores {
                let known = peers.contains { $0.name == entry.peer || $0.address.description.lowercased() == entry.peer.lowercased() }
                if !known {
                    out.append("\(RulesDecoding.prefix(ranking.mark))ranking \"\(ranking.name)\": base_scores names \"\(entry.peer)\", which is no configured peer")
                }
            }
        }
        return out
    }

    /// The facing tolerance for a peer in stage band `stage` (nil when it has none): nil means facing
    /// cannot be evaluated.
    func facingTolerance(inStage stage: Int?) -> Double? {
        switch facing?.tolerance {
        case .degrees(let d)?: return d
        case .stage?:
            guard let stage, let bands = stages?.bands, bands.indices.contains(stage) else { return nil }
            return bands[stage].facingToleranceDegrees
        case nil: return nil
        }
    }
}

extension Rules: Decodable {
    enum CodingKeys: String, CodingKey {
        case version, filter, signalLostAfter = "signal_lost_after", direction, zones, stages, approaches, facing, rankings
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let version = try c.decode(Located<Int>.self, forKey: .version)
        guard version.value == 1 else {
            throw SourceError(at: version.mark, "unsupported rules version \(version.value) (this agent reads version 1)")
        }
        filter = try c.decodeIfPresent(FilterSettings.self, forKey: .filter) ?? FilterSettings()
        signalLostAfter = 2
        if let lost = try c.decodeIfPresent(Located<TimeSpan>.self, forKey: .signalLostAfter) {
            guard lost.value.seconds > 0 else {
                throw SourceError(at: lost.mark, "signal_lost_after must be longer than 0")
            }
            signalLostAfter = lost.value.seconds
        }
        direction = try c.decodeIfPresent(DirectionSettings.self, forKey: .direction) ?? DirectionSettings()
        zones = try RulesDecoding.optionalList(c, .zones, atMost: RulesBounds.zones, of: "zones")?.value ?? []
        stages = try c.decodeIfPresent(StageRules.self, forKey: .stages)
        approaches = try RulesDecoding.optionalList(c, .approaches, atMost: RulesBounds.approaches, of: "approaches")?.value ?? []
        facing = try c.decodeIfPresent(FacingRule.self, forKey: .facing)
        rankings = try RulesDecoding.optionalList(c, .rankings, atMost: RulesBounds.rankings, of: "rankings")?.value ?? []

        let none = Located<Int>.unknownMark
        try RulesDecoding.requireUnique(zones.map { Located($0.name, at: $0.nameMark ?? none) }, kind: "zone")
        try RulesDecoding.requireUnique(approaches.map { Located($0.name, at: $0.nameMark ?? none) }, kind: "approach")
        try RulesDecoding.requireUnique(rankings.map { Located($0.name, at: $0.nameMark ?? none) }, kind: "ranking")

        if var facing {
            let bandsWithTolerance = stages?.bands.allSatisfy { $0.facingToleranceDegrees != nil } ?? false
            if !facing.toleranceGiven {
                facing.tolerance = bandsWithTolerance ? .stage : .degrees(30)
            } else if facing.tolerance == .stage {
                let at = facing.toleranceMark ?? none
                guard let stages else {
                    throw SourceError(at: at, "tolerance_deg: stage needs a stages section whose bands set facing_tolerance_deg")
                }
                if let band = stages.bands.first(where: { $0.facingToleranceDegrees == nil }) {
                    throw SourceError(at: band.mark ?? at, "band \(Excerpt.quoted(band.name)) needs attributes.facing_tolerance_deg, since facing.tolerance_deg is \"stage\"",
                                    kind: .missingKey)
                }
            }
            self.facing = facing
        }
    }
}
