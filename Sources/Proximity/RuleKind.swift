/// One kind of rule in a rules file — zones, stages, approaches, facing, rankings — as the parts
/// that describe rules read it: the rules payload's `thresholds`, the rules file's JSON Schema,
/// `watch`'s list of event types and its bar marks, and the bands and colours of `replay`'s plot.
/// Each kind declares this beside its rule type, and ``RuleKinds/all`` lists them: none of those
/// parts names a kind itself.
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
}

extension RuleKind {
    public static func thresholds(in rules: Rules) -> [RuleDistance] { [] }
    public static func bands(in rules: Rules) -> [RuleBand] { [] }
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
