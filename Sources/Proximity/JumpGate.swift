/// Decides whether a measured distance may be followed, given where the filter expected the peer.
///
/// A person cannot move faster than `max_speed`, so a measurement farther from the prediction than
/// `max_speed × Δt + slack` is an outlier (a reflection, a non-line-of-sight path) and is not followed
/// at once. It is followed — as a real jump, the filter restarting at it — when it persists: after
/// ``confirmations`` consecutive outliers that agree with each other (each within `max_speed × Δt +
/// slack` of the previous one), or when nothing has been accepted for ``timeout`` seconds. `slack`
/// (the filter's own uncertainty) keeps tiny Δt from turning ordinary noise into outliers.
public struct JumpGate: Hashable, Sendable {
    public var maxSpeed: Double
    /// Consecutive, mutually consistent outliers after which the jump is accepted. Default 3
    /// (0.6 s at the usual 200 ms ranging interval).
    public var confirmations: Int
    /// Seconds without an accepted measurement after which the next one is accepted whatever it is.
    /// Default 1 s.
    public var timeout: Double

    private var candidate: Candidate?
    private var lastAccepted: Double?

    private struct Candidate: Hashable, Sendable {
        var value: Double
        var time: Double
        var count: Int
    }

    public enum Verdict: Hashable, Sendable {
        /// Consistent with the prediction: update the filter normally.
        case accept
        /// An outlier: keep the prediction.
        case reject
        /// A jump that persisted: restart the filter at the measurement.
        case jump
    }

    public init(maxSpeed: Double, confirmations: Int = 3, timeout: Double = 1) {
        self.maxSpeed = maxSpeed
        self.confirmations = confirmations
        self.timeout = timeout
    }

    public mutating func judge(measured: Double, predicted: Double, slack: Double, at time: Double) -> Verdict {
        let elapsed = lastAccepted.map { max(0, time - $0) } ?? 0
        // The prediction already moved with the estimated velocity; Δt since the last accepted
        // measurement bounds how far the peer can have strayed from it.
        if abs(measured - predicted) <= maxSpeed * elapsed + slack {
            accept(at: time)
            return .accept
        }
        var count = 1
        if let c = candidate, abs(measured - c.value) <= maxSpeed * max(0, time - c.time) + slack {
            count = c.count + 1
        }
        candidate = Candidate(value: measured, time: time, count: count)
        if count >= confirmations || elapsed >= timeout {
            accept(at: time)
            return .jump
        }
        return .reject
    }

    private mutating func accept(at time: Double) {
        candidate = nil
        lastAccepted = time
    }
}
