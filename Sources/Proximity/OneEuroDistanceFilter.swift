/// The One-Euro filter (Casiez, Roussel, Vogel, CHI 2012) over one peer's distance: a low-pass whose
/// cutoff rises with speed, so that a standing peer is steady and a walking one is followed with
/// little lag.
///
/// Defaults from a sweep over synthetic walk-up tracks (σ 8 cm at 5 Hz, see FilterTests): ``minCutoff``
/// 0.5 Hz, ``beta`` 4 (Hz per m/s), ``derivativeCutoff`` 0.5 Hz. It smooths less than the Kalman filter
/// on such tracks (it has no motion model), but never lags a walking person by more than a few cm. Jumps faster than `max_speed` go through a ``JumpGate`` (slack 0.3 m,
/// about 3σ of line-of-sight noise).
public struct OneEuroDistanceFilter: Hashable, Sendable {
    public var minCutoff: Double
    public var beta: Double
    public var derivativeCutoff: Double
    public var gate: JumpGate?

    private var x = 0.0, dx = 0.0
    private var lastTime: Double?

    public init(maxSpeed: Double?, minCutoff: Double = 0.5, beta: Double = 4.0, derivativeCutoff: Double = 0.5) {
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivativeCutoff = derivativeCutoff
        gate = maxSpeed.map { JumpGate(maxSpeed: $0) }
    }

    public var estimate: Double? { lastTime == nil ? nil : max(0, x) }

    public mutating func update(_ z: Double, at time: Double) -> Double {
        guard let last = lastTime else {
            restart(at: z, time: time)
            _ = gate?.judge(measured: z, predicted: z, slack: 0, at: time)
            return max(0, x)
        }
        let dt = time - last
        let predicted = x + dx * max(0, dt)
        switch gate?.judge(measured: z, predicted: predicted, slack: 0.3, at: time) ?? .accept {
        case .reject:
            // Hold: the next accepted measurement's Δt spans the gap.
            return max(0, x)
        case .jump:
            restart(at: z, time: time)
            return max(0, x)
        case .accept:
            break
        }
        lastTime = time
        // A repeated timestamp carries no rate information: take the value, keep the derivative.
        guard dt > 0 else {
            x = z
            return max(0, x)
        }
        let rawDerivative = (z - x) / dt
        let ad = Self.alpha(cutoff: derivativeCutoff, dt: dt)
        dx = ad * rawDerivative + (1 - ad) * dx
        let cutoff = minCutoff + beta * abs(dx)
        let a = Self.alpha(cutoff: cutoff, dt: dt)
        x = a * z + (1 - a) * x
        return max(0, x)
    }

    private mutating func restart(at z: Double, time: Double) {
        x = z
        dx = 0
        lastTime = time
    }

    /// The smoothing factor of a first-order low-pass with cutoff `cutoff` Hz sampled every `dt` s.
    static func alpha(cutoff: Double, dt: Double) -> Double {
        let tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / dt)
    }
}
