import Vocabulary
import SiteFusion
import Testing
import TestSupport

/// The data: an 8 m × 6 m hall with gateways at 2.2–2.6 m, 5 cm range noise, and ranges
/// that read 0.5–1.5 m long without the NLoS flag (a blocked direct path the firmware cannot tell
/// from a clear one), on one gateway at a time, on every gateway in turn, at points all over the
/// hall. What a consumer must be able to rely on is the tail: no fix far off while claiming to be
/// close. Every trial draws from its own seed, so the figures are the same on every run.
@Suite struct MultilaterationOutlierTests {
    static let magnitudes = [0.5, 0.7, 0.9, 1.1, 1.3, 1.5]
    static let solver = MultilaterationSolver(tagHeight: 1)

    /// Runs `trials` noisy solves per point with `outliers(trial)` added to the ranges (by gateway
    /// index), the noise seeded by `seed` and the trial.
    static func run(_ gateways: [(String, SitePoint)], seed: UInt64, trials: Int,
                    outliers: (Int) -> [Int: Double]) -> FixStatistics {
        var statistics = FixStatistics()
        for (p, tag) in SyntheticSite.hallPoints.enumerated() {
            for trial in 0..<trials {
                var noise = SeededNoise(seed: seed &* 1_000_003 &+ UInt64(p * 10_000 + trial))
                let bias = outliers(trial)
                let observations = SyntheticSite.observations(gateways, tag: tag) { i in
                    noise.gaussian(sigma: 0.05) + (bias[i] ?? 0)
                }
                guard let fix = try? solver.solve(observations) else {
                    statistics.refusals += 1
                    continue
                }
                statistics.record(error: SyntheticSite.horizontalError(fix, tag), accuracy: fix.accuracyM)
            }
        }
        return statistics
    }

    static func expectNoConfidentlyWrongFix(_ s: FixStatistics) {
        #expect(s.confident(errorAbove: 0.3, claimBelow: 0.1).isEmpty, "\(s.confident(errorAbove: 0.3, claimBelow: 0.1).prefix(5))")
        #expect(s.claimingAThird(errorAbove: 0.3).isEmpty, "\(s.claimingAThird(errorAbove: 0.3).prefix(5))")
        #expect(s.withinTwiceAccuracy >= 0.95)
    }

    /// Without outliers nearly every trial gives a fix, and the accuracy is honest.
    @Test func noiseOnly() {
        let s = Self.run(SyntheticSite.hall, seed: 1, trials: 40) { _ in [:] }
        print("hall, 4 gateways, 5 cm noise: \(s)")
        Self.expectNoConfidentlyWrongFix(s)
        #expect(s.median <= 0.06)
        #expect(Double(s.refusals) <= 0.01 * Double(s.fixes + s.refusals))
    }

    /// The case: one gateway of four reads long, on every gateway in turn and with every
    /// magnitude from 0.5 to 1.5 m.
    @Test(arguments: 0..<4)
    func oneUnflaggedOutlierAmongFour(gateway: Int) {
        let s = Self.run(SyntheticSite.hall, seed: UInt64(10 + gateway), trials: 6 * 8) { trial in
            [gateway: Self.magnitudes[trial % Self.magnitudes.count]]
        }
        print("hall, 4 gateways, \(SyntheticSite.hall[gateway].0) +0.5…1.5 m unflagged: \(s)")
        Self.expectNoConfidentlyWrongFix(s)
        // Every trial carries an outlier here, and near the middle of four gateways in a rectangle
        // an outlier on one corner reads like one on the opposite corner: such fixes are off and
        // say so (accuracy_m reaches the other reading). The bar's 6 cm median is for a run with a
        // passing outlier (FusionTrackerOutlierTests).
        #expect(s.median <= 0.07)
        // The outlier is found and left out, not merely tolerated: most trials still give a fix.
        #expect(s.fixes >= 8 * (s.fixes + s.refusals) / 10)
    }

    /// The bar: a 0.9 m outlier on one of four gateways.
    @Test func ninetyCentimetreOutlierAmongFour() {
        // Median ≤ 6 cm although every trial carries the outlier.
        var all = FixStatistics()
        for gateway in 0..<4 {
            let s = Self.run(SyntheticSite.hall, seed: UInt64(20 + gateway), trials: 20) { _ in [gateway: 0.9] }
            all.errors += s.errors
            all.accuracies += s.accuracies
            all.refusals += s.refusals
        }
        print("hall, 4 gateways, one +0.9 m unflagged: \(all)")
        Self.expectNoConfidentlyWrongFix(all)
        #expect(all.median <= 0.06)
    }

    /// With five to eight gateways, two outliers at once (every pair in turn): still never a
    /// confident wrong fix. With five, the three good ranges left are often on one wall (a corner,
    /// the middle of the wall, the other corner), which cannot tell the tag from its mirror image
    /// beyond the wall: the ranges left out decide, and where two outliers happen to point at the
    /// mirror image, the accuracy covers both. Three ranges check each other little, so the
    /// median is higher there.
    @Test(arguments: 5...8)
    func twoUnflaggedOutliers(gateways count: Int) {
        let gateways = SyntheticSite.hall(gateways: count)
        let pairs = MultilaterationOutlierTests.pairs(count)
        let s = Self.run(gateways, seed: UInt64(30 + count), trials: pairs.count * 2) { trial in
            let (a, b) = pairs[trial % pairs.count]
            return [a: Self.magnitudes[trial % Self.magnitudes.count], b: Self.magnitudes[(trial / 2 + 3) % Self.magnitudes.count]]
        }
        print("hall, \(count) gateways, two +0.5…1.5 m unflagged: \(s)")
        Self.expectNoConfidentlyWrongFix(s)
        #expect(s.median <= (count == 5 ? 0.08 : 0.06))
        #expect(s.refusals == 0)
    }

    /// One outlier among more gateways costs next to nothing.
    @Test(arguments: [6, 8])
    func oneUnflaggedOutlierAmongMore(gateways count: Int) {
        let gateways = SyntheticSite.hall(gateways: count)
        let s = Self.run(gateways, seed: UInt64(40 + count), trials: count * 6) { trial in
            [trial % count: Self.magnitudes[(trial / count) % Self.magnitudes.count]]
        }
        print("hall, \(count) gateways, one +0.5…1.5 m unflagged: \(s)")
        Self.expectNoConfidentlyWrongFix(s)
        #expect(s.median <= 0.05)
        #expect(s.refusals == 0)
    }

    static func pairs(_ n: Int) -> [(Int, Int)] {
        (0..<n).flatMap { a in ((a + 1)..<n).map { (a, $0) } }
    }
}
