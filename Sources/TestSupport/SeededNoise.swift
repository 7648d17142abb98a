import Foundation
import Simulator

/// A seeded pseudo-random source so that every noisy test run draws the same numbers: the
/// simulator's SplitMix64 for uniform bits, Box–Muller for Gaussian samples.
public struct SeededNoise: Sendable {
    private var generator: SplitMix64
    private var spare: Double?

    public init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    public mutating func next() -> UInt64 { generator.next() }

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
