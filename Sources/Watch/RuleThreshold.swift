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
            return Self.glob(Array(pattern), Array(name)) || mac.map { Self.glob(Array(pattern.lowercased()), Array($0.lowercased())) } ?? false
        }
    }

    /// `*` any run of characters, `?` one, anything else itself.
    static func glob(_ pattern: [Character], _ text: [Character]) -> Bool {
        var p = 0, t = 0, star: Int?, resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
