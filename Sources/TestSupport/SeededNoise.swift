import Foundation

/// A seeded pseudo-random source so that every noisy test run draws the same numbers: SplitMix64
/// for uniform bits, Box–Muller for Gaussian samples.
public struct SeededNoise: Sendable {
    private var state: UInt64
    private var spare: Double?

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in (0, 1]: never 0, so that log is finite.
    public mutating func uniform() -> Double {
        Double((next() >> 11) + 1) / Double(1 << 53)
    }

    /// A normal sample with the given standard deviation.
    public mutating func gaussian(sigma: Double) -> Double {
        if let spare {
            self.spare = nil
            return spare * sigma
        }
        let u1 = uniform(), u2 = uniform()
        let radius = (-2 * log(u1)).squareRoot()
        spare = radius * sin(2 * Double.pi * u2)
        return radius * cos(2 * Double.pi * u2) * sigma
    }
}
