#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// The simulator's only source of randomness: SplitMix64 (Steele, Lea & Flood 2014).
///
/// A seeded generator of our own, rather than `SystemRandomNumberGenerator`, so that a scenario
/// with the same seed produces byte-identical output on every run and every machine: a failing
/// end-to-end test can be replayed exactly. SplitMix64 is tiny, passes BigCrush, and any seed
/// (even 0) is a good one.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// An independent generator for one purpose (noise, faults, …), so that drawing more numbers
    /// for one purpose never shifts the numbers another purpose gets.
    public init(seed: UInt64, stream: UInt64) {
        var mixer = SplitMix64(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        state = mixer.next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Standard normal (mean 0, deviation 1) by Box–Muller; one of the pair is discarded so
    /// that the generator carries no hidden cached value.
    public mutating func nextGaussian() -> Double {
        let u1 = max(nextUnit(), 0x1.0p-53)
        let u2 = nextUnit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// Uniform integer in `range`, for chunk sizes and garbage lengths.
    public mutating func nextInt(in range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }
}
