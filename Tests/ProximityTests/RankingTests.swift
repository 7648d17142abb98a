import Proximity
import Testing

@Suite struct RankingTests {
    static let rankingRules = """
        facing: {tolerance_deg: 30}
        rankings:
          - name: share
            within: 5
            base_scores: {tool-cart: 15}
            nearby_within: 2
            nearby_bonus: 10
            facing_bonus: 20

        """

    func orders(_ drive: Drive) -> [[String]] {
        drive.rankings.map { $0.peers.map { "\($0.peer.displayName)=\(Int($0.score))" } }
    }

    @Test func orderAndMembership() throws {
        var drive = Drive(try unfiltered(Self.rankingRules), aoa: true)
        drive.measure(cart, 4, at: 0)
        drive.measure(anna, 3, at: 0.1)
        drive.measure(anna, 1.5, at: 0.2)               // +10, still second: no new ranking
        drive.measure(anna, 1.5, at: 0.3, azimuth: 0)   // facing: 30 > 15
        drive.measure(cart, 6, at: 0.4)                 // beyond within: leaves
        drive.measure(bob, 1.4, at: 0.5, azimuth: 10)   // ties with anna at 30, nearer: first
        drive.measure(anna, 1.5, at: 0.6, azimuth: 90)  // anna no longer facing: 10
        #expect(orders(drive) == [
            ["tool-cart=15"],
            ["tool-cart=15", "phone-anna=0"],
            ["phone-anna=30", "tool-cart=15"],
            ["phone-anna=30"],
            ["phone-bob=30", "phone-anna=30"],
            ["phone-bob=30", "phone-anna=10"],
        ].dropLast())
        let last = try #require(drive.rankings.last)
        #expect(last.rule == "share" && last.ts == 0.5 && last.peers[0].facing == true && last.peers[0].distanceM == 1.4)
        #expect(drive.engine.rankings(at: 1).first?.peers.map(\.score) == [30, 10])
    }

    /// A notification's measurements are one snapshot: the ranking after all of them is what
    /// counts, not the order that held after the first while the second was still unread.
    @Test func aRoundIsRankedOnceOnTheWhole() throws {
        let rules = try unfiltered("rankings: [{name: r}]\n")
        let rounds: [[(PeerIdentity, Double)]] = [[(anna, 1), (bob, 2)], [(anna, 3), (bob, 4)]]
        func published(roundByRound: Bool) -> [[PeerIdentity]] {
            var engine = ProximityEngine(rules: rules, peers: [anna, bob], deviceHasAoA: false)
            var outputs: [ProximityOutput] = []
            for (index, round) in rounds.enumerated() {
                let time = Double(index) / 10
                for (peer, distance) in round {
                    let sample = RangingSample(distanceMeters: distance)
                    if roundByRound {
                        engine.ingestWithinRound(peer: peer, sample: sample, at: time, into: &outputs)
                    } else {
                        engine.ingest(peer: peer, sample: sample, at: time, into: &outputs)
                    }
                }
                if roundByRound { engine.endRound(at: time, into: &outputs) }
            }
            return outputs.compactMap { if case let .ranking(ranking) = $0 { ranking.peers.map(\.peer) } else { nil } }
        }
        // Each measurement a round of its own: bob leads for the moment between anna's 3 m and his 4 m.
        #expect(published(roundByRound: false) == [[anna], [anna, bob], [bob, anna], [anna, bob]])
        #expect(published(roundByRound: true) == [[anna, bob]])
    }

    @Test func facingBonusOnlyWithDirection() throws {
        var drive = Drive(try unfiltered(Self.rankingRules), aoa: false)
        drive.measure(anna, 1, at: 0, azimuth: 0)
        #expect(drive.rankings.last?.peers.map(\.score) == [10])
    }

    @Test func tiesAreDeterministic() throws {
        var drive = Drive(try unfiltered("rankings: [{name: r}]\n"))
        drive.measure(bob, 3, at: 0)
        drive.measure(anna, 3, at: 0)
        #expect(drive.rankings.last?.peers.map(\.peer) == [anna, bob])
    }

    @Test func lostPeersLeaveTheRanking() throws {
        var drive = Drive(try unfiltered("rankings: [{name: r}]\n"))
        drive.measure(anna, 3, at: 0)
        drive.measure(bob, 2, at: 1)
        drive.tick(at: 2.5)
        #expect(drive.rankings.map { $0.peers.map(\.peer) } == [[anna], [bob, anna], [bob]])
    }

    /// Which peers a ranking selects and their base scores are worked out once per peer; a rules reload
    /// must redo that, by glob, name and address, and a peer whose link comes back keeps the new rules.
    @Test func reloadedRulesReselectPeersAndBaseScores() throws {
        var drive = Drive(try unfiltered("rankings: [{name: r, peers: [\"phone-*\"], base_scores: {phone-anna: 5}}]\n"))
        drive.measure(anna, 3, at: 0)
        drive.measure(bob, 2, at: 0.1)
        drive.measure(cart, 1, at: 0.2)
        #expect(orders(drive).last == ["phone-anna=5", "phone-bob=0"])
        drive.outputs = drive.engine.replaceRules(try unfiltered("""
            rankings: [{name: r, peers: [tool-cart, "0x0003"], base_scores: {"0x0003": 7, phone-anna: 50}}]

            """), at: 0.3)
        #expect(orders(drive) == [["phone-bob=7", "tool-cart=0"]])
        drive.outputs = []
        drive.tick(at: 2.5)                 // every link lost: the ranking empties
        drive.measure(bob, 2, at: 3)        // regained: selected under the new rules, with its new score
        drive.measure(anna, 1, at: 3.1)     // never selected by the new rules
        #expect(orders(drive) == [[], ["phone-bob=7"]])
        #expect(drive.engine.rankings(at: 3.2).map { $0.peers.map(\.peer) } == [[bob]])
    }
}
