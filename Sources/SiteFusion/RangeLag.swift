/// How far behind the fuse reads each gateway's ranges: a range's age on arrival (arrival less
/// its `ts`) less the least age seen from that gateway in the last minute — which is its clock's
/// offset from this machine's and the network's least delay, so that only the fuse's own backlog
/// is left. A fuse that cannot keep up (more ranges a second than its core can fuse) sees this
/// grow; it then drops ranges older than `max_lag` instead of fusing ever older ones.
public struct RangeLag: Sendable {
    private struct Least: Sendable {
        var current: Double
        var previous: Double
        var since: Double
    }

    private var least: [String: Least] = [:]
    /// How long each half of the memory of the least age lasts: a minute in all.
    static let half = 30.0

    public init() {}

    /// The lag of a range of `gateway` that was `age` seconds old when it arrived at `time`.
    public mutating func lag(of gateway: String, age: Double, at time: Double) -> Double {
        var entry = least[gateway] ?? Least(current: age, previous: age, since: time)
        if time - entry.since >= Self.half {
            entry.previous = entry.current
            entry.current = age
            entry.since = time
        }
        entry.current = min(entry.current, age)
        least[gateway] = entry
        return max(0, age - min(entry.current, entry.previous))
    }

    /// Forgets a gateway (its status was cleared).
    public mutating func remove(_ gateway: String) {
        least[gateway] = nil
    }
}
