import UCI

/// The engine's peer trackers by address, each with its next deadline beside it.
///
/// A tracker lives in a slot of an array, found by one dictionary lookup, and is moved out of its
/// slot while the engine works on it (`take`) and back into the same slot (`put`): one hash of
/// the address per measurement, and no second reference to the tracker's arrays while they
/// change (a write to a shared array would copy it). A dictionary of trackers cost a removal and
/// two insertions (tracker and deadline) per measurement instead.
struct TrackerTable: Sendable {
    /// Where a tracker lives; valid until its address is removed.
    struct Slot: Sendable {
        fileprivate let index: Int
    }

    private var slots: [MacAddress: Int] = [:]
    /// nil: a slot freed by `remove`, or a tracker taken out and not yet put back.
    private var trackers: [PeerTracker?] = []
    /// Each slot's ``PeerTracker/nextDeadline(rules:)`` as of its last `put`.
    private var deadlines: [Double?] = []
    private var freed: [Int] = []

    /// Moves the tracker of `address` out of its slot; nil for an address without one.
    mutating func take(_ address: MacAddress) -> (PeerTracker, Slot)? {
        guard let index = slots[address], let tracker = trackers[index].take() else { return nil }
        return (tracker, Slot(index: index))
    }

    /// Puts `tracker` back where `take` found it.
    mutating func put(_ tracker: PeerTracker, deadline: Double?, in slot: Slot) {
        trackers[slot.index] = tracker
        deadlines[slot.index] = deadline
    }

    /// Puts `tracker` in the slot of its address, a new one if it has none.
    mutating func put(_ tracker: PeerTracker, deadline: Double?) {
        let address = tracker.identity.address
        if let index = slots[address] {
            return put(tracker, deadline: deadline, in: Slot(index: index))
        }
        let index: Int
        if let reused = freed.popLast() {
            index = reused
        } else {
            index = trackers.count
            trackers.append(nil)
            deadlines.append(nil)
        }
        slots[address] = index
        put(tracker, deadline: deadline, in: Slot(index: index))
    }

    /// Forgets `address` and its tracker.
    mutating func remove(_ address: MacAddress) {
        guard let index = slots.removeValue(forKey: address) else { return }
        trackers[index] = nil
        deadlines[index] = nil
        freed.append(index)
    }

    func contains(_ address: MacAddress) -> Bool { slots[address] != nil }

    /// What `body` makes of the tracker of `address`, without taking it out; nil without one.
    func read<Result>(_ address: MacAddress, _ body: (PeerTracker) -> Result) -> Result? {
        guard let index = slots[address] else { return nil }
        return trackers[index].map(body)
    }

    /// What ranking `ranking` reads of every ranging tracker with a base score in it: its peer,
    /// filtered distance, base score and facing, in no particular order. Read field by field in
    /// place: handing out each tracker would copy it (a retain of each of its arrays and
    /// strings), for every ranking after every round.
    func forEachRanked(in ranking: Int, _ body: (PeerIdentity, _ distance: Double, _ base: Double, _ facing: Bool?) -> Void) {
        for index in trackers.indices where trackers[index]?.link == .ranging {
            guard let distance = trackers[index]?.distance, let base = trackers[index]?.rankings[ranking],
                  let identity = trackers[index]?.identity else { continue }
            body(identity, distance, base, trackers[index]?.facing ?? nil)
        }
    }

    /// The earliest deadline of all: a scan of a small array, read twice a round.
    var earliestDeadline: Double? {
        var earliest: Double?
        for case let deadline? in deadlines where deadline < earliest ?? .infinity { earliest = deadline }
        return earliest
    }
}
