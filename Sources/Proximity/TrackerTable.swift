import UCI

/// The engine's peer trackers by address, each with its next deadline beside it.
///
/// A tracker lives in a slot of an array, found by one lookup of its address (``AddressMap``),
/// and the engine changes it there (``subscript(_:timeouts:)``): no copy of the tracker (a few
/// hundred bytes) out of its slot and back, and no second reference to its arrays while they
/// change (a write to a shared array would copy it). The array has no holes (a removed tracker's
/// slot goes to the last one), so that no slot is an `Optional`: through one, the optimizer
/// copied the whole tracker for every change and its deadline.
struct TrackerTable: Sendable {
    /// Where a tracker lives; valid until a tracker is removed.
    struct Slot: Sendable {
        fileprivate let index: Int
    }

    private var slots = AddressMap<Int>()
    private var trackers: [PeerTracker] = []
    /// Each slot's ``PeerTracker/nextDeadline(_:)`` as of the end of its last change.
    private var deadlines: [Double?] = []

    /// The slot of the tracker of `address`; nil for an address without one.
    func slot(of address: MacAddress) -> Slot? {
        slots[address].map(Slot.init(index:))
    }

    /// The tracker in `slot`, changed where it lives; its deadline under `timeouts` is worked
    /// out again when the change ends, so that ``earliestDeadline`` never misses one.
    subscript(slot: Slot, timeouts timeouts: PeerTracker.Timeouts) -> PeerTracker {
        _read { yield trackers[slot.index] }
        _modify {
            defer { deadlines[slot.index] = Self.deadline(of: &trackers[slot.index], timeouts) }
            yield &trackers[slot.index]
        }
    }

    /// Read where the tracker lives: the array's getter would copy it out first.
    private static func deadline(of tracker: inout PeerTracker, _ timeouts: PeerTracker.Timeouts) -> Double? {
        tracker.nextDeadline(timeouts)
    }

    /// Puts `tracker` in a slot of its address, which has none.
    @discardableResult
    mutating func insert(_ tracker: PeerTracker, timeouts: PeerTracker.Timeouts) -> Slot {
        let address = tracker.identity.address
        precondition(slots[address] == nil, "a second tracker of \(address)")
        let index = trackers.count
        slots[address] = index
        deadlines.append(tracker.nextDeadline(timeouts))
        trackers.append(tracker)
        return Slot(index: index)
    }

    /// Forgets `address`: its tracker, which is handed back; nil for an address without one.
    @discardableResult
    mutating func remove(_ address: MacAddress) -> PeerTracker? {
        guard let index = slots.removeValue(forKey: address) else { return nil }
        let last = trackers.count - 1
        if index != last {
            trackers.swapAt(index, last)
            deadlines.swapAt(index, last)
            slots[trackers[index].identity.address] = index
        }
        deadlines.removeLast()
        return trackers.removeLast()
    }

    func contains(_ address: MacAddress) -> Bool { slots[address] != nil }

    /// What `body` makes of the tracker of `address`, without taking it out; nil without one.
    func read<Result>(_ address: MacAddress, _ body: (PeerTracker) -> Result) -> Result? {
        guard let index = slots[address] else { return nil }
        return body(trackers[index])
    }

    /// What ranking `ranking` reads of every ranging tracker with a base score in it: its peer,
    /// filtered distance, base score and facing, in no particular order. Read field by field in
    /// place: handing out each tracker would copy it (a retain of each of its arrays and
    /// strings), for every ranking after every round.
    func forEachRanked(in ranking: Int, _ body: (PeerIdentity, _ distance: Double, _ base: Double, _ facing: Bool?) -> Void) {
        for index in trackers.indices where trackers[index].link == .ranging {
            guard let distance = trackers[index].distance, let base = trackers[index].rankings[ranking] else { continue }
            body(trackers[index].identity, distance, base, trackers[index].facing)
        }
    }

    /// The earliest deadline of all: a scan of a small array, read twice a round.
    var earliestDeadline: Double? {
        var earliest: Double?
        for case let deadline? in deadlines where deadline < earliest ?? .infinity { earliest = deadline }
        return earliest
    }
}
