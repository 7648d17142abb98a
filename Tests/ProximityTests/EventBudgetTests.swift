import Proximity
import Testing
import Vocabulary

/// Each peer publishes at most 10 events a second on average, in bursts of 100; what ends a
/// published event's beginning is never dropped, and an end whose beginning was dropped goes too.
@Suite struct EventBudgetTests {
    /// The budget under test, as a reference so that its decisions can be expected inline.
    final class Budget {
        var budget = EventBudget()
        func admits(_ type: EventType, _ rule: String? = nil, to: JSONValue = "x", peer: PeerIdentity = cart, at t: Double) -> Bool {
            budget.admit(ProximityEvent(ts: t, peer: peer, type: type, rule: rule, from: "x", to: to, distanceM: 1))
        }
    }

    /// A zone crossed at every measurement, 20 times a second for 30 s: 600 events, of which a
    /// burst and then ten a second go out, and what goes out reads as the zone entered and left
    /// in turn, never an exit without its entry.
    @Test func aFloodIsCutToTheBudgetAndKeepsEntriesAndExitsPaired() {
        let budget = Budget()
        var admitted: [EventType] = []
        for step in 0..<600 {
            let type: EventType = step % 2 == 0 ? .zoneEnter : .zoneExit
            if budget.admits(type, "counter", at: 1000 + Double(step) * 0.05) { admitted.append(type) }
        }
        // 100 at once, then 10 a second over 30 s (an exit whose entry went out goes in debt).
        #expect(admitted.count <= 100 + 10 * 30 + 1, "\(admitted.count)")
        #expect(admitted.count >= 100 + 10 * 29, "\(admitted.count)")
        #expect(admitted.enumerated().allSatisfy { $0.element == ($0.offset % 2 == 0 ? .zoneEnter : .zoneExit) })
    }

    /// With the budget spent, a lost link still takes the peer out of every zone, stage and
    /// approach a consumer saw it enter: those ends go out; the signal_lost itself, a beginning,
    /// may not, and then neither does its signal_regained.
    @Test func endsOfWhatWasPublishedAreNeverDropped() {
        let budget = Budget()
        var t = 1000.0
        for i in 0..<5 { #expect(budget.admits(.zoneEnter, "z\(i)", at: t)) }
        #expect(budget.admits(.stageChange, to: "near", at: t))
        #expect(budget.admits(.approachReady, "handoff", at: t))
        // The rest of the burst goes on changes between stages.
        while budget.admits(.stageChange, to: "far", at: t) {}
        t += 0.01
        #expect(!budget.admits(.signalLost, at: t))
        for i in 0..<5 { #expect(budget.admits(.zoneExit, "z\(i)", at: t), "zone_exit z\(i)") }
        #expect(budget.admits(.stageChange, to: .null, at: t))
        #expect(budget.admits(.approachCanceled, "handoff", at: t))
        // The ends were charged (7, in debt): half a second later nothing else goes yet.
        t += 0.5
        #expect(!budget.admits(.signalRegained, at: t), "its signal_lost was dropped")
        #expect(!budget.admits(.zoneEnter, "z0", at: t))
        t += 1
        #expect(budget.admits(.zoneEnter, "z0", at: t))
    }

    /// A dropped entry takes its exit with it, even when there is budget again by then.
    @Test func anEndWhoseBeginningWasDroppedIsDroppedToo() {
        let budget = Budget()
        while budget.admits(.facingGained, at: 1000) { _ = budget.admits(.facingLost, at: 1000) }
        #expect(!budget.admits(.zoneEnter, "counter", at: 1000))
        #expect(!budget.admits(.zoneExit, "counter", at: 1010))
        #expect(budget.admits(.zoneEnter, "counter", at: 1010))
        #expect(budget.admits(.zoneExit, "counter", at: 1010))
    }

    /// The budget is per peer: one peer's flood costs another nothing.
    @Test func eachPeerHasItsOwnBudget() {
        let budget = Budget()
        let cartAdmitted = (0..<300).filter { budget.admits($0 % 2 == 0 ? .zoneEnter : .zoneExit, "counter", at: 1000) }.count
        #expect(cartAdmitted <= 101)
        #expect(budget.admits(.zoneEnter, "counter", peer: anna, at: 1000))
    }
}
