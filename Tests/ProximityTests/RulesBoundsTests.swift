import Proximity
import Testing
import TestSupport
import RulesReading

/// How much a rules file may hold (RulesBounds): a file at every bound loads; one item beyond
/// any bound is refused at that item, `file:line:column`, before the rest is decoded.
@Suite struct RulesBoundsTests {
    let name = 64
    /// 64 patterns of 64 characters.
    var patterns: [String] { (0..<RulesBounds.peersPerRule).map { LargeRulesFile.name("cart", $0, length: name) } }

    @Test func aFileAtEveryBoundLoads() throws {
        let text = LargeRulesFile.text(zones: RulesBounds.zones, bands: RulesBounds.stageBands, approaches: RulesBounds.approaches,
                                       rankings: RulesBounds.rankings, peers: patterns, baseScores: RulesBounds.baseScoresPerRanking,
                                       nameLength: name)
        let loaded = try rules(text)
        #expect(loaded.zones.count == 64 && loaded.stages?.bands.count == 16 && loaded.approaches.count == 32 && loaded.rankings.count == 16)
        #expect(loaded.zones.allSatisfy { $0.peers.count == 64 } && loaded.rankings.allSatisfy { $0.baseScores.count == 64 })
    }

    /// `what` one beyond its bound: the message names the bound and the count, at the first item over it.
    @Test(arguments: [
        ("zones", RulesBounds.zones + 1, "zone-0064-", "65th"),
        ("bands", RulesBounds.stageBands + 1, "band-0016-", "17th"),
        ("approaches", RulesBounds.approaches + 1, "approach-0032-", "33rd"),
        ("rankings", RulesBounds.rankings + 1, "ranking-0016-", "17th"),
    ])
    func oneRuleBeyondABoundIsRefusedAtIt(what: String, count: Int, beyond: String, ordinal: String) throws {
        let kind = what
        let text = LargeRulesFile.text(zones: kind == "zones" ? count : 1, bands: kind == "bands" ? count : 0,
                                       approaches: kind == "approaches" ? count : 0, rankings: kind == "rankings" ? count : 0)
        let at = try #require(LargeRulesFile.position(of: "{name: \(beyond)", in: text))
        #expect(rulesFailure(text) == "rules.yaml:\(at.line):\(at.column): at most \(count - 1) \(what) are allowed, found \(count) (this is the \(ordinal))")
    }

    @Test func aRuleWithOnePeerTooManyIsRefusedAtThatPeer() throws {
        let list = patterns + ["one-too-many"]
        for (text, rule) in [(LargeRulesFile.text(zones: 1, peers: list), "zone"), (LargeRulesFile.text(zones: 0, approaches: 1, peers: list), "approach"),
                             (LargeRulesFile.text(zones: 0, rankings: 1, peers: list), "ranking")] {
            let at = try #require(LargeRulesFile.position(of: "\"one-too-many\"", in: text))
            #expect(rulesFailure(text) == "rules.yaml:\(at.line):\(at.column): at most 64 peers in one rule are allowed, found 65 (this is the 65th)", "\(rule)")
        }
    }

    @Test func aRankingWithOneBaseScoreTooManyIsRefusedAtIt() throws {
        let text = LargeRulesFile.text(zones: 0, rankings: 1, baseScores: RulesBounds.baseScoresPerRanking + 1)
        let at = try #require(LargeRulesFile.position(of: LargeRulesFile.name("peer", 64, length: 12), in: text))
        #expect(rulesFailure(text) == "rules.yaml:\(at.line):\(at.column): at most 64 base_scores entries are allowed, found 65 (this is the 65th)")
    }

    @Test func longPatternsKeysAndAttributesAreRefusedWhereWritten() {
        let long = String(repeating: "p", count: 65)
        #expect(rulesFailure("version: 1\nzones:\n  - {name: a, peers: [\"\(long)\"], enter_within: 1, exit_beyond: 2}\n")
                == "rules.yaml:3:23: a peer pattern is at most 64 characters, this one has 65")
        #expect(rulesFailure("version: 1\nrankings:\n  - {name: r, base_scores: {\(long): 1}}\n")
                == "rules.yaml:3:29: a base_scores key is a peer name or address of at most 64 characters, this one has 65")
        let note = String(repeating: "n", count: 1024)
        #expect(rulesFailure("version: 1\nstages:\n  bands:\n    - {name: near, attributes: {note: \(note)}}\n")
                == "rules.yaml:4:32: attributes are at most 1024 bytes as JSON, found 1036")
        #expect(rulesFailure("version: 1\nfacing:\n  cues:\n    gained: {sound: \(note)}\n")
                == "rules.yaml:4:13: the gained cue's attributes are at most 1024 bytes as JSON, found 1037")
        #expect(rulesFailure("version: 1\nstages:\n  bands:\n    - {name: near, attributes: {note: \(note.dropFirst(20))}}\n") == "<loaded without error>")
    }

    /// A file of 10,000 zones (under the 1 MiB file limit) would take the agent past its
    /// unit's memory limit: refused at the 65th zone, without decoding the rest.
    @Test func tenThousandZonesAreRefusedAtTheSixtyFifth() throws {
        let text = LargeRulesFile.text(zones: 10_000, peers: ["cart-*"])
        #expect(text.utf8.count > 600_000 && text.utf8.count < 1 << 20)
        let at = try #require(LargeRulesFile.position(of: "{name: zone-0064-", in: text))
        #expect(at.line == 67 && at.column == 5)
        #expect(rulesFailure(text) == "rules.yaml:67:5: at most 64 zones are allowed, found 10000 (this is the 65th)")
    }
}
