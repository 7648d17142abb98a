import Vocabulary
import SiteFusion
import Testing
import TestSupport

/// Ranges with 5 cm Gaussian noise over many random tag positions inside the hull: the error stays
/// small, and the reported accuracy is calibrated — the true error is below `accuracy_m` in a
/// fraction of trials that a one-sigma radius should give (neither over- nor badly under-confident).
@Suite struct MultilaterationNoiseTests {
    struct Figures: CustomStringConvertible {
        var errors: [Double] = []
        var accuracies: [Double] = []
        var covered = 0
        var failures = 0

        var mean: Double { errors.reduce(0, +) / Double(max(errors.count, 1)) }
        var p95: Double { percentile(errors, 0.95) }
        var coverage: Double { Double(covered) / Double(max(errors.count, 1)) }
        var meanAccuracy: Double { accuracies.reduce(0, +) / Double(max(accuracies.count, 1)) }

        func percentile(_ values: [Double], _ q: Double) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return .nan }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)]
        }

        var description: String {
            let f = { (v: Double) in String(Int((v * 1000).rounded())) + " mm" }
            return "n=\(errors.count) mean \(f(mean)) p95 \(f(p95)) mean accuracy_m \(f(meanAccuracy)) "
                + "error<accuracy \(Int((coverage * 1000).rounded()) / 10)% failures \(failures)"
        }
    }

    static func run(_ gateways: [(String, SitePoint)], tagHeight: Double?, rangeSigma: Double, trials: Int = 600,
                    seed: UInt64) -> Figures {
        var noise = SeededNoise(seed: seed)
        var options = MultilaterationSolver.Options()
        options.rangeSigma = rangeSigma
        let solver = MultilaterationSolver(tagHeight: tagHeight, options: options)
        var figures = Figures()
        for _ in 0..<trials {
            let tag = SitePoint(x: 0.5 + 5 * noise.uniform(), y: 0.5 + 5 * noise.uniform(),
                                z: tagHeight ?? (0.8 + 1.0 * noise.uniform()))
            let observations = SyntheticSite.observations(gateways, tag: tag, noise: { _ in noise.gaussian(sigma: 0.05) })
            guard let fix = try? solver.solve(observations) else {
                figures.failures += 1
                continue
            }
            let error = tagHeight == nil ? fix.point.distance(to: tag) : SyntheticSite.horizontalError(fix, tag)
            figures.errors.append(error)
            figures.accuracies.append(fix.accuracyM)
            if error < fix.accuracyM { figures.covered += 1 }
        }
        return figures
    }

    @Test func planarFiveCentimetreNoise() {
        let calibrated = Self.run(SyntheticSite.square, tagHeight: 1.0, rangeSigma: 0.05, seed: 1)
        let defaults = Self.run(SyntheticSite.square, tagHeight: 1.0, rangeSigma: 0.1, seed: 1)
        print("2-D square, 5 cm noise, range_sigma 0.05: \(calibrated)")
        print("2-D square, 5 cm noise, range_sigma 0.10 (default): \(defaults)")
        #expect(calibrated.failures == 0)
        #expect(calibrated.mean < 0.06)
        #expect(calibrated.p95 < 0.12)
        #expect((0.6...0.95).contains(calibrated.coverage))
        #expect(defaults.coverage >= calibrated.coverage)
    }

    @Test func spatialFiveCentimetreNoise() {
        let calibrated = Self.run(SyntheticSite.staggered, tagHeight: nil, rangeSigma: 0.05, seed: 2)
        let defaults = Self.run(SyntheticSite.staggered, tagHeight: nil, rangeSigma: 0.1, seed: 2)
        print("3-D staggered, 5 cm noise, range_sigma 0.05: \(calibrated)")
        print("3-D staggered, 5 cm noise, range_sigma 0.10 (default): \(defaults)")
        #expect(calibrated.failures == 0)
        #expect((0.6...0.95).contains(calibrated.coverage))
        #expect(defaults.coverage >= calibrated.coverage)
    }
}
