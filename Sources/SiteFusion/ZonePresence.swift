/// Whether one peer is in one zone, with the crossing that is waiting out its dwell.
///
/// The same rule as the agent's distance zones (rules.md): a change starts when the position is
/// past the hysteresis margin on the other side, must hold on every position for `dwell`, and any
/// position that no longer satisfies it cancels the wait. Kept as a value so that the tracker's state
/// is plain data.
struct ZonePresence: Hashable, Sendable {
    private(set) var inside = false
    /// When the pending change first held; nil when nothing is pending.
    private(set) var crossedAt: Double?

    /// Tolerance for comparing times that are sums of seconds (a dwell of 0.3 s reached by 0.1 s steps).
    static let timeSlack = 1e-6

    /// A zone change that has held for its dwell.
    struct Transition: Hashable, Sendable {
        var entered: Bool
        var crossedAt: Double
        var at: Double
    }

    /// Feeds one position's signed distance (positive inside) at `time`.
    mutating func update(signedDistance: Double, at time: Double, zone: PolygonZone) -> Transition? {
        let changing = inside ? signedDistance < -zone.hysteresis : signedDistance >= zone.hysteresis
        guard changing else {
            crossedAt = nil
            return nil
        }
        let start = crossedAt ?? time
        guard time - start >= zone.dwell - Self.timeSlack else {
            crossedAt = start
            return nil
        }
        return complete(crossedAt: start, at: time)
    }

    /// Completes a pending change whose dwell has run out by `time` with no position contradicting
    /// it; the change's time is when the dwell ran out, not when the tick happened to come.
    mutating func tick(at time: Double, zone: PolygonZone) -> Transition? {
        guard let end = dwellEnd(zone: zone), time >= end - Self.timeSlack, let crossedAt else { return nil }
        return complete(crossedAt: crossedAt, at: end)
    }

    /// When the pending change completes unless a position contradicts it; nil with none pending.
    /// A tick at this moment completes it.
    func dwellEnd(zone: PolygonZone) -> Double? {
        crossedAt.map { $0 + zone.dwell }
    }

    /// Leaves the zone without a dwell (the position was lost); returns true if the peer was inside.
    mutating func forceOutside() -> Bool {
        crossedAt = nil
        defer { inside = false }
        return inside
    }

    private mutating func complete(crossedAt start: Double, at time: Double) -> Transition {
        inside.toggle()
        crossedAt = nil
        return Transition(entered: inside, crossedAt: start, at: time)
    }
}
