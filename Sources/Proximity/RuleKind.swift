import Vocabulary

/// One kind of rule in a rules file — zones, stages, approaches, facing, rankings — whole: how its
/// section of the file is read, how one peer lives its rules (``Tracking``: evaluation, loss,
/// carry-over on reload, its part of `state`), and what describes it to readers of the rules (the
/// rules payload's `thresholds`, the schema, `watch`'s event types and bar marks, `replay`'s plot).
/// Each kind declares all of it beside its rule type, and ``RuleKinds/all`` lists them: neither the
/// engine, the peer tracker nor those readers name a kind themselves.
public protocol RuleKind: Sendable {
    /// Its key in a rules file (`zones`).
    static var key: String { get }
    /// What one of its rules is called in words (`zone`): the plot's legend, warnings.
    static var noun: String { get }
    /// The events its rules emit, as mqtt-api.md names them.
    static var events: [EventDeclaration] { get }
    /// The JSON Schema of its section of the rules file: `"key": {…}`, indented from column 0.
    static var schema: String { get }
    /// The distances at which its rules in `rules` decide, in file order.
    static func thresholds(in rules: Rules) -> [RuleDistance]
    /// Where its rules in `rules` decide, as bands over a distance axis (replay's plot).
    static func bands(in rules: Rules) -> [RuleBand]

    /// What a rules file holds of the kind: a list of its rules, or one section.
    associatedtype Section: Hashable & Sendable
    /// The section of a file without ``key``.
    static var noRules: Section { get }
    /// Reads its section under ``key`` of a rules file (``noRules`` when the key is absent).
    static func decode(from file: KeyedDecodingContainer<RulesKey>) throws -> Section
    /// Checks and defaults that need the other kinds' sections, once every section is read.
    static func complete(_ section: inout Section, in rules: Rules) throws
    /// A line per rule of `section` that selects none of `peers`, prefixed with its place in the file.
    static func warnings(_ section: Section, for peers: [PeerIdentity]) -> [String]

    /// How one peer lives the kind's rules.
    associatedtype Tracking: RuleTracking
    /// The kind's rules in `rules` for `peer`, each in its initial state (a peer seen for the
    /// first time, or again after a lost link).
    static func tracking(in rules: Rules, for peer: inout PeerTracker) -> Tracking
}

extension RuleKind {
    /// The members its tracking adds to a peer's `state`.
    public static var stateProperties: [JSONSchema.Property] { Tracking.stateProperties }

    public static func thresholds(in rules: Rules) -> [RuleDistance] { [] }
    public static func bands(in rules: Rules) -> [RuleBand] { [] }
    public static func complete(_ section: inout Section, in rules: Rules) throws {}
    public static func warnings(_ section: Section, for peers: [PeerIdentity]) -> [String] { [] }
}

/// The key of a section of a rules file: the fixed keys and each kind's ``RuleKind/key``.
public struct RulesKey: CodingKey, Hashable, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }
    public init(_ key: String) { stringValue = key }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

/// A distance at which a rule decides: a zone's `enter` and `exit`, a stage band's lower bound
/// (`stage`), an approach's `start`, `confirm` and `cancel`, with the peers it applies to.
public struct RuleDistance: Hashable, Sendable {
    public var rule: String
    /// What is decided there, one word (`enter`): the `kind` of a `thresholds` entry.
    public var kind: String
    public var metres: Double
    public var peers: [PeerPattern]

    public init(rule: String, kind: String, metres: Double, peers: [PeerPattern]) {
        self.rule = rule
        self.kind = kind
        self.metres = metres
        self.peers = peers
    }
}

/// A band over a distance axis where a rule decides (`low` … `high`, a line when equal), named
/// for a legend, with the peers it applies to.
public struct RuleBand: Hashable, Sendable {
    public var name: String
    public var low: Double
    public var high: Double
    public var peers: [PeerPattern]

    public init(name: String, low: Double, high: Double, peers: [PeerPattern]) {
        self.name = name
        self.low = low
        self.high = high
        self.peers = peers
    }
}

/// An event type a rule kind emits, with what it means to a person reading a plot or a log.
public struct EventDeclaration: Hashable, Sendable {
    /// Something begins or is gained (green), ends or is lost (red), is done (a completion),
    /// or just changes.
    public enum Tone: Hashable, Sendable { case begins, ends, completes, changes }

    public var type: EventType
    public var tone: Tone

    public init(_ type: EventType, _ tone: Tone) {
        self.type = type
        self.tone = tone
    }
}
