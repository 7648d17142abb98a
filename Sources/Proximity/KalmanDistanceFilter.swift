/// A constant-velocity Kalman filter over one peer's distance (state: distance and radial velocity).
///
/// Constant velocity because people walk steadily between stops; the process noise is a white
/// acceleration of ``accelerationNoise`` (default 0.7 m/s², walking starts and stops), the measurement
/// noise ``measurementNoise`` (default 0.08 m, a DWM3001C in line of sight; ×3 for a measurement the
/// device flags NLOS). Jumps faster than `max_speed` go through a ``JumpGate`` with the filter's
/// own 3σ innovation as slack.
public struct KalmanDistanceFilter: Hashable, Sendable {
    /// Standard deviation of a line-of-sight measurement, metres.
    public var measurementNoise: Double
    /// Standard deviation of the white acceleration driving the model, m/s².
    public var accelerationNoise: Double
    public var gate: JumpGate?

    private var d = 0.0, v = 0.0
    private var p00 = 0.0, p01 = 0.0, p11 = 0.0
    private var lastTime: Double?

    public init(maxSpeed: Double?, measurementNoise: Double = 0.08, accelerationNoise: Double = 0.7) {
        self.measurementNoise = measurementNoise
        self.accelerationNoise = accelerationNoise
        gate = maxSpeed.map { JumpGate(maxSpeed: $0) }
    }

    /// The current distance estimate, nil before the first measurement.
    public var estimate: Double? { lastTime == nil ? nil : max(0, d) }
    /// The estimate's standard deviation, metres.
    public var standardDeviation: Double? { lastTime == nil ? nil : p00.squareRoot() }
    /// Radial velocity, m/s (negative when approaching).
    public var velocity: Double? { lastTime == nil ? nil : v }

    /// Feeds one measurement (metres) taken at `time` (seconds) and returns the filtered distance.
    public mutating func update(_ z: Double, at time: Double, nonLineOfSight: Bool = false) -> Double {
        let r = measurementNoise * (nonLineOfSight ? 3 : 1)
        let variance = r * r
        guard let last = lastTime else {
            restart(at: z, time: time, variance: variance)
            _ = gate?.judge(measured: z, predicted: z, slack: 0, at: time)
            return max(0, d)
        }
        // Out-of-order or repeated timestamps: no time passes, nothing is extrapolated.
        let dt = max(0, time - last)
        let q = accelerationNoise * accelerationNoise
        let pd = d + v * dt
        let n00 = p00 + 2 * dt * p01 + dt * dt * p11 + q * dt * dt * dt * dt / 4
        let n01 = p01 + dt * p11 + q * dt * dt * dt / 2
        let n11 = p11 + q * dt * dt
        let s = n00 + variance
        let verdict = gate?.judge(measured: z, predicted: pd, slack: 3 * s.squareRoot(), at: time) ?? .accept
        lastTime = time
        switch verdict {
        case .reject:
            d = pd
            p00 = n00; p01 = n01; p11 = n11
        case .jump:
            restart(at: z, time: time, variance: variance)
        case .accept:
            let k0 = n00 / s, k1 = n01 / s
            let innovation = z - pd
            d = pd + k0 * innovation
            v += k1 * innovation
            p00 = (1 - k0) * n00
            p01 = (1 - k0) * n01
            p11 = n11 - k1 * n01
        }
        return max(0, d)
    }

    private mutating func restart(at z: Double, time: Double, variance: Double) {
        d = z
        v = 0
        p00 = variance
        p01 = 0
        p11 = 1  // (1 m/s)²: a walking speed either way
        lastTime = time
    }
}
