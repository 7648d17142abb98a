import Vocabulary

/// A validated rules file, version 1 (spec/rules.md): how distances are filtered, and each rule
/// kind's section (``RuleKinds/all``: zones, stages, approaches, facing, rankings) that turns
/// them into state and events.
///
/// Read one from a file with `RulesFile.load(text:file:)` (RulesReading); build one in code with
/// ``init(filter:signalLostAfter:direction:zones:stages:approaches:facing:rankings:)``, or set a
/// kind's section with ``subscript(_:)``; each kind also reads its own (`rules.zones`).
/// Defaults for absent keys: `filter` kalman / max_speed 3 m/s, `signal_lost_after` 2 s,
/// `direction` min_fom 50 / max_age 500 ms, and each kind's ``RuleKind/noRules``.
public struct Rules: Hashable, Sendable {
    public var filter: FilterSettings
    /// Seconds without a valid measurement after which a peer's link is lost.
    public var signalLostAfter: Double
    public var direction: DirectionSettings
    /// Each kind's section, by kind; a kind absent here has ``RuleKind/noRules``.
    private var sections = RuleSections()
    /// Hex SHA-256 of the file's bytes; empty for rules built in code.
    public var sha256: String = ""
    /// The file's bytes, whose SHA-256 `sha256` is (`rules_get` answers with them); empty for
    /// rules built in code.
    public var bytes: [UInt8] = []

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

    /// The section of `kind`.
    public subscript<Kind: RuleKind>(_ kind: Kind.Type) -> Kind.Section {
        get { sections[kind] }
        set { sections[kind] = newValue }
    }

    /// One line per rule (and per `base_scores` entry) that selects none of `peers`, prefixed with its
    /// place in the file, kind by kind. Allowed, because peers come and go, but worth telling the
    /// rule editor.
    public func warnings(for peers: [PeerIdentity]) -> [String] {
        func warnings<Kind: RuleKind>(_ kind: Kind.Type) -> [String] { Kind.warnings(self[kind], for: peers) }
        return RuleKinds.all.flatMap { warnings($0) }
    }
}

extension Rules: Decodable {
    private static let version = RulesKey("version"), filterKey = RulesKey("filter")
    private static let signalLostAfterKey = RulesKey("signal_lost_after"), directionKey = RulesKey("direction")

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: RulesKey.self)
        let version = try c.decode(Located<Int>.self, forKey: Self.version)
        guard version.value == 1 else {
            throw SourceError(at: version.mark, "unsupported rules version \(version.value) (this agent reads version 1)")
        }
        filter = try c.decodeIfPresent(FilterSettings.self, forKey: Self.filterKey) ?? FilterSettings()
        signalLostAfter = 2
        if let lost = try c.decodeIfPresent(Located<TimeSpan>.self, forKey: Self.signalLostAfterKey) {
            guard lost.value.seconds > 0 else {
                throw SourceError(at: lost.mark, "signal_lost_after must be longer than 0")
            }
            signalLostAfter = lost.value.seconds
        }
        direction = try c.decodeIfPresent(DirectionSettings.self, forKey: Self.directionKey) ?? DirectionSettings()
        func read<Kind: RuleKind>(_ kind: Kind.Type, into rules: inout Rules) throws { rules[kind] = try Kind.decode(from: c) }
        func complete<Kind: RuleKind>(_ kind: Kind.Type, in rules: inout Rules) throws {
            var section = rules[kind]
            try Kind.complete(&section, in: rules)
            rules[kind] = section
        }
        for kind in RuleKinds.all { try read(kind, into: &self) }
        for kind in RuleKinds.all { try complete(kind, in: &self) }
    }
}

/// The rule kinds' sections of one rules file, each under its kind.
private struct RuleSections: Hashable, Sendable {
    private var values: [ObjectIdentifier: any Hashable & Sendable] = [:]

    subscript<Kind: RuleKind>(_ kind: Kind.Type) -> Kind.Section {
        get { values[ObjectIdentifier(kind)] as? Kind.Section ?? Kind.noRules }
        set { values[ObjectIdentifier(kind)] = newValue == Kind.noRules ? nil : newValue }
    }

    static func == (a: RuleSections, b: RuleSections) -> Bool {
        a.values.count == b.values.count && a.values.allSatisfy { key, value in
            b.values[key].map { AnyHashable(value) == AnyHashable($0) } ?? false
        }
    }

    func hash(into hasher: inout Hasher) {
        for kind in RuleKinds.all { hasher.combine(values[ObjectIdentifier(kind)].map { AnyHashable($0) }) }
    }
}
