import Vocabulary

/// A distance at which a gateway's rules decide, from its retained `rules` (`thresholds`): a
/// zone's `enter` or `exit`, a stage band's lower bound (`stage`), an approach's `start`,
/// `confirm` or `cancel`. Marked on the bars of the peers it applies to.
public struct RuleThreshold: Sendable, Equatable {
    public var rule: String
    public var kind: String
    public var metres: Double
    /// The rule's `peers:` patterns: names, addresses (`0x0001`) or globs with `*` and `?`.
    public var peers: [String]

    public init(rule: String, kind: String, metres: Double, peers: [String]) {
        self.rule = rule
        self.kind = kind
        self.metres = metres
        self.peers = peers
    }

    /// Whether a rule's bar marks are drawn: the ones a person walking up cares about; `cancel`
    /// (beyond the start) would crowd them.
    public var isMarked: Bool { kind != "cancel" }

    /// True when one of the patterns names the peer (`mac` in the notation of the `range` payload).
    public func applies(to name: String, mac: String?) -> Bool {
        peers.contains { pattern in
            if pattern.lowercased().hasPrefix("0x"), !pattern.contains("*"), !pattern.contains("?") {
                return mac.map { $0.lowercased() == pattern.lowercased() } ?? false
            }
            return Glob.matches(pattern, name) || mac.map { Glob.matches(pattern.lowercased(), $0.lowercased()) } ?? false
        }
    }
}
