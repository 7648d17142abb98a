/// A rules file as large as the test asks: so many zones, stage bands, approaches and rankings,
/// each rule with the given peers, names padded to `nameLength` characters. One rule per line
/// (flow style), so that a test finds where each is written (`position(of:in:)`).
public enum LargeRulesFile {
    /// The name of rule `index` of `kind` (`zone`, `band`, `approach`, `ranking`), `nameLength`
    /// characters long: `zone-0042-xxxx…`.
    public static func name(_ kind: String, _ index: Int, length: Int) -> String {
        padded("\(kind)-\(String(index).leftPadded(4))-", to: length)
    }

    /// The text of the file. `peers` nil leaves `peers:` out (every peer); `baseScores` entries
    /// per ranking name `peer-0000-…` to `peer-NNNN-…`.
    public static func text(zones: Int, bands: Int = 0, approaches: Int = 0, rankings: Int = 0, peers: [String]? = nil,
                            baseScores: Int = 0, nameLength: Int = 12) -> String {
        let peerList = peers.map { ", peers: [" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" } ?? ""
        var lines = ["version: 1"]
        if zones > 0 {
            lines.append("zones:")
            for i in 0..<zones {
                // Hundredths, so that each distance prints as written (1.3, not 1.3000000000000003).
                let enter = Double(100 + i) / 100, exit = Double(130 + i) / 100
                lines.append("  - {name: \(name("zone", i, length: nameLength))\(peerList), enter_within: \(enter), exit_beyond: \(exit)}")
            }
        }
        if bands > 0 {
            lines += ["stages:", "  hysteresis: 0.1", "  bands:"]
            for i in 0..<bands {
                let beyond = i < bands - 1 ? ", beyond: \(2 * (bands - 1 - i))" : ""
                lines.append("    - {name: \(name("band", i, length: nameLength))\(beyond)}")
            }
        }
        if approaches > 0 {
            lines.append("approaches:")
            for i in 0..<approaches {
                lines.append("  - {name: \(name("approach", i, length: nameLength))\(peerList), start_within: 0.6, confirm_within: 0.12, cancel_beyond: 0.7}")
            }
        }
        if rankings > 0 {
            lines.append("rankings:")
            let scores = (0..<baseScores).map { "\(name("peer", $0, length: nameLength)): \($0)" }.joined(separator: ", ")
            for i in 0..<rankings {
                lines.append("  - {name: \(name("ranking", i, length: nameLength))\(peerList), within: 5, base_scores: {\(scores)}}")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The 1-based line and column of the first occurrence of `needle` in `text`.
    public static func position(of needle: String, in text: String) -> (line: Int, column: Int)? {
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let range = line.range(of: needle) {
                return (number + 1, line.unicodeScalars.distance(from: line.startIndex, to: range.lowerBound) + 1)
            }
        }
        return nil
    }

    private static func padded(_ text: String, to length: Int) -> String {
        text.count >= length ? text : text + String(repeating: "x", count: length - text.count)
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
