@testable import Proximity
import Testing
import UCI

/// The engine's trackers by address: a tracker removed gives its slot to the last one, and every
/// other is still found by its address, with its own changes and deadline.
@Suite struct TrackerTableTests {
    static let rules = Rules(signalLostAfter: 2)
    static let timeouts = PeerTracker.Timeouts(rules)
    static let peers = (1...4).map { PeerIdentity(address: .short(UInt16($0)), name: "peer-\($0)") }

    /// Every peer ranging, its last valid measurement at its own number of seconds.
    func table() -> TrackerTable {
        var table = TrackerTable()
        for (index, peer) in Self.peers.enumerated() {
            let slot = table.insert(PeerTracker(identity: peer, rules: Self.rules), timeouts: Self.timeouts)
            table[slot, timeouts: Self.timeouts].link = .ranging
            table[slot, timeouts: Self.timeouts].lastValid = Double(index + 1)
        }
        return table
    }

    /// Deadlines carry the tick's slack, a few microseconds.
    func isAbout(_ deadline: Double?, _ expected: Double) -> Bool {
        deadline.map { abs($0 - expected) < 0.001 } ?? false
    }

    func lastValid(_ table: TrackerTable, _ peer: PeerIdentity) -> Double?? {
        table.read(peer.address) { $0.identity == peer ? $0.lastValid : nil }
    }

    @Test func aRemovedTrackersSlotGoesToTheLastAndEveryOtherIsFoundByItsAddress() throws {
        var table = table()
        #expect(isAbout(table.earliestDeadline, 1 + 2))
        #expect(table.remove(Self.peers[0].address)?.identity == Self.peers[0])
        #expect(table.remove(Self.peers[0].address) == nil && !table.contains(Self.peers[0].address))
        #expect(isAbout(table.earliestDeadline, 2 + 2))
        for (index, peer) in Self.peers.enumerated().dropFirst() { #expect(lastValid(table, peer) == Double(index + 1)) }

        // The last one, now in the first slot, changes there, deadline and all.
        let moved = try #require(table.slot(of: Self.peers[3].address))
        table[moved, timeouts: Self.timeouts].lastValid = 0.5
        #expect(isAbout(table.earliestDeadline, 0.5 + 2))
        #expect(lastValid(table, Self.peers[3]) == 0.5 && lastValid(table, Self.peers[1]) == 2)

        // Removing the last slot moves nothing; a new tracker takes the next slot.
        #expect(table.remove(Self.peers[2].address)?.identity == Self.peers[2])
        table.insert(PeerTracker(identity: Self.peers[0], rules: Self.rules), timeouts: Self.timeouts)
        #expect(table.contains(Self.peers[0].address) && lastValid(table, Self.peers[0]) == .some(nil))
        #expect(isAbout(table.earliestDeadline, 0.5 + 2))
        #expect(table.remove(Self.peers[3].address)?.lastValid == 0.5)
        #expect(isAbout(table.earliestDeadline, 2 + 2))
    }
}
