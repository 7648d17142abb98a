/// When the scenario's timed faults fire, in device time, across loops.
///
/// `split_writes` is not an event but a window (see `isSplitting`); every other fault fires
/// once per pass through the scenario: once in total without a duration or with `at_end: stop`,
/// every `duration` seconds when looping.
struct FaultSchedule: Sendable {
    private let events: [ScenarioFault]
    private let period: Double?
    private let limit: Double?
    private var cycle = 0
    private var index = 0

    init(_ scenario: Scenario) {
        events = scenario.faults.enumerated()
            .filter { if case .splitWrites = $0.element.kind { false } else { true } }
            .sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map(\.element)
        period = scenario.atEnd == .loop ? scenario.duration : nil
        limit = scenario.atEnd == .stop ? scenario.duration : nil
    }

    /// Elapsed seconds (since the scenario started) of the next fault, nil if none is left.
    var nextTime: Double? {
        guard index < events.count else { return nil }
        let at = events[index].at
        if let limit, at > limit { return nil }
        return Double(cycle) * (period ?? 0) + at
    }

    /// The fault due at `nextTime`; moves on to the next one.
    mutating func pop() -> ScenarioFault? {
        guard nextTime != nil else { return nil }
        let fault = events[index]
        index += 1
        if index == events.count, period != nil {
            index = 0
            cycle += 1
        }
        return fault
    }

    /// Drops the faults due before `elapsed` seconds: for a device powered on mid-scene.
    mutating func skip(before elapsed: Double) {
        while let next = nextTime, next < elapsed, pop() != nil {}
    }

    /// True while a `split_writes` window covers scenario time `t`.
    static func isSplitting(_ scenario: Scenario, at t: Double) -> (maxChunk: Int, gap: Double)? {
        for fault in scenario.faults {
            if case let .splitWrites(until, maxChunk, gap) = fault.kind, t >= fault.at, t < until {
                return (maxChunk, gap)
            }
        }
        return nil
    }
}
