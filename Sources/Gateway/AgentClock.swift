/// The agent's time: the wall clock, as long as it behaves, and never running backwards.
///
/// Decisions (a tag lost after `signal_lost_after`, a dwell complete) need time that moves
/// steadily; `ts` in every payload needs the wall clock. The system clock can step: forward when
/// NTP first syncs a board without a real-time clock, backward when someone sets it. A step
/// forward is followed at once and reported, so that the silence it seems to create is not taken
/// for the tags'; a step backward is not followed: the agent's time keeps running at the
/// monotonic clock's pace and drifts back to the wall clock at most `slewRate` seconds per
/// second, so that it never runs backwards and every peer's events stay in order (a step back
/// shorter than `stepThreshold` is only waited out).
///
/// Pure: both clocks' readings go in; the time comes out.
struct AgentClock {
    /// How far the two clocks may move apart, either way, before it counts as a step (s).
    static let stepThreshold = 0.5
    /// How fast the agent's time catches up with a wall clock that stepped back (s per s).
    static let slewRate = 0.005

    /// Agent time = monotonic + offset while catching up; nil before the first reading.
    private var offset: Double?
    /// True from a step back until the agent's time is back on the wall clock.
    private var catchingUp = false
    private var lastMonotonic = 0.0
    private(set) var last = -Double.infinity

    /// The agent's time for readings of the monotonic and wall clocks taken together, and
    /// whether the wall clock stepped forward since the last reading (by more than
    /// `stepThreshold`).
    mutating func time(monotonic: Double, wall: Double) -> (time: Double, steppedForward: Bool) {
        let target = wall - monotonic
        var stepped = false
        var result = wall
        if let offset {
            if target >= offset {
                stepped = target - offset > Self.stepThreshold
                catchingUp = false
                self.offset = target
            } else if catchingUp || target < offset - Self.stepThreshold {
                // Within `stepThreshold` the wall clock is followed as it is (held where it goes
                // back): readings of the two clocks are never taken at one instant, and a thread
                // preempted between them sees their difference wander by as long as it waited.
                let slewed = max(target, offset - Self.slewRate * max(0, monotonic - lastMonotonic))
                catchingUp = slewed > target
                self.offset = slewed
                if catchingUp { result = monotonic + slewed }
            } else {
                self.offset = target
            }
        } else {
            offset = target
        }
        lastMonotonic = monotonic
        result = max(result, last)
        last = result
        return (result, stepped)
    }
}
