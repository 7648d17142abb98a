/// Glob matching as the rules file's `peers:` patterns mean it: `*` is any run of characters,
/// `?` one character, anything else itself. Shared by the rules (`PeerPattern`) and by viewers
/// that apply a gateway's published rules to its peers (`watch`).
public enum Glob {
    /// Iterative matching with backtracking to the last `*`: linear in practice, never exponential.
    public static func matches(_ pattern: some StringProtocol, _ text: some StringProtocol) -> Bool {
        let p = Array(pattern), s = Array(text)
        var pi = 0, si = 0
        var star: Int? = nil, mark = 0
        while si < s.count {
            if pi < p.count, p[pi] == "?" || p[pi] == s[si] {
                pi += 1
                si += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi
                mark = si
                pi += 1
            } else if let st = star {
                pi = st + 1
                mark += 1
                si = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}
