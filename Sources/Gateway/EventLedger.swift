import Proximity
import UCI
import Vocabulary

/// The events the core publishes: each one's place in the sequence that makes its id, the
/// per-peer budget that bounds them (`EventBudget`), what the budget drops (counted, and said once
/// per 10 s with a count of the rest) and, for observers that need them typed, a log.
struct EventLedger {
    /// Events published: the counter of their ids.
    private(set) var published = 0
    /// Events a peer's budget dropped (`events_dropped`).
    private(set) var dropped = 0
    private var budget = EventBudget()
    private var drops = LogThrottle()
    /// Kept only while `keepsLog` (replay's comparison and plot, the debug log).
    private(set) var log: [ProximityEvent] = []
    var keepsLog = false

    /// The id counter of `event` when its peer's budget admits it; nil, and the lines to log, when
    /// it does not. A dropped event takes no id, so that the published ids stay without gaps.
    mutating func admit(_ event: ProximityEvent) -> Result<Int, Drop> {
        guard budget.admit(event) else {
            dropped += 1
            let line = "dropped a \(event.type.rawValue) event of \(event.peer.displayName): a peer publishes at most "
                + "\(Int(EventBudget.perSecond)) events a second, in bursts of \(Int(EventBudget.burst)) (counted in metrics as events_dropped; "
                + "its retained state stays current)"
            // Dated by the core's time, which never runs backwards.
            return .failure(Drop(lines: drops.lines(for: line, at: event.ts)))
        }
        published += 1
        if keepsLog { log.append(event) }
        return .success(published)
    }

    /// What a drop has to say.
    struct Drop: Error {
        var lines: [String]
    }

    /// A peer whose topics changed starts a new budget.
    mutating func forget(_ address: MacAddress) {
        budget.forget(address)
    }

    /// The typed log, emptied.
    mutating func takeLog() -> [ProximityEvent] {
        defer { log.removeAll(keepingCapacity: true) }
        return log
    }
}
