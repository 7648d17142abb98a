import Vocabulary

/// A rule kind whose section is a list of named rules that each select peers (zones, approaches,
/// rankings): its section is read as such a list, at most ``maximumCount`` long with each name
/// used once, and a rule that selects none of the configured peers is worth a warning.
public protocol NamedRuleKind: RuleKind, Decodable where Section == [Self] {
    var name: String { get }
    var peers: [PeerPattern] { get }
    /// Where the rule is written, for warnings; nil for rules built in code.
    var mark: SourceMark? { get }
    /// Where its name is written, for a second use of it.
    var nameMark: SourceMark? { get }
    /// The most rules of the kind a file may have (``RulesBounds``).
    static var maximumCount: Int { get }
}

extension NamedRuleKind {
    public static var noRules: [Self] { [] }

    public static func decode(from file: KeyedDecodingContainer<RulesKey>) throws -> [Self] {
        try RulesDecoding.namedRules(file, key, atMost: maximumCount, noun: noun) {
            Located($0.name, at: $0.nameMark ?? Located<Int>.unknownMark)
        }
    }

    public static func warnings(_ section: [Self], for peers: [PeerIdentity]) -> [String] {
        section.compactMap { RulesDecoding.unmatched(noun, $0.name, $0.peers, $0.mark, peers: peers) }
    }
}
