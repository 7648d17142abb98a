import Vocabulary
import SiteFusion
import Testing
import TestSupport

/// Outlying and NLoS ranges must not drag the fix: a +2 m outlier among 5 gateways is rejected, a
/// NLoS-flagged long range is down-weighted.
@Suite struct MultilaterationRobustnessTests {
    static let tags = [SitePoint(x: 3, y: 3, z: 1), SitePoint(x: 1.2, y: 4.4, z: 1), SitePoint(x: 5, y: 1, z: 1),
                       SitePoint(x: 4, y: 5.5, z: 1)]

    /// Neither outlier rejection nor a consistency test: ordinary (NLoS-weighted) least squares.
    static var plainLeastSquares: MultilaterationSolver.Options {
        var options = MultilaterationSolver.Options()
        options.maxRejectedRanges = 0
        options.consistencyQuantile = 1e9
        return options
    }

    @Test(arguments: tags, 0..<5)
    func twoMetreOutlierAmongFiveIsRejected(tag: SitePoint, outlier: Int) throws {
        var noise = SeededNoise(seed: UInt64(outlier + 10))
        let observations = SyntheticSite.observations(SyntheticSite.pentagon, tag: tag) { i in
            noise.gaussian(sigma: 0.05) + (i == outlier ? 2.0 : 0)
        }
        let fix = try MultilaterationSolver(tagHeight: 1).solve(observations)
        let error = SyntheticSite.horizontalError(fix, tag)
        #expect(error < 0.15, "error \(error) with outlier at \(SyntheticSite.pentagon[outlier].0)")
        #expect(!fix.usedGateways.contains(SyntheticSite.pentagon[outlier].0))
        #expect(fix.usedGateways.count == 4)
        #expect(fix.accuracyM < 0.5 || error < fix.accuracyM / 3, "accuracy_m \(fix.accuracyM)")
        #expect(error <= 2 * fix.accuracyM)
    }

    /// Plain least squares would move well over 30 cm with a 2 m outlier; measure the gain.
    @Test func outlierWithoutRejectionWouldHaveMovedTheFix() throws {
        let tag = SitePoint(x: 3, y: 3, z: 1)
        let observations = SyntheticSite.observations(SyntheticSite.pentagon, tag: tag) { $0 == 4 ? 2.0 : 0 }
        let plain = try MultilaterationSolver(tagHeight: 1, options: Self.plainLeastSquares).solve(observations)
        let robust = try MultilaterationSolver(tagHeight: 1).solve(observations)
        print("outlier +2 m, 5 gateways: least squares error \(SyntheticSite.horizontalError(plain, tag)) m, robust \(SyntheticSite.horizontalError(robust, tag)) m, robust accuracy_m \(robust.accuracyM)")
        #expect(SyntheticSite.horizontalError(plain, tag) > 0.3)
        #expect(SyntheticSite.horizontalError(robust, tag) < 0.01)
    }

    /// Four gateways (one redundant range): Tukey may reject the outlier and keep three; the
    /// accuracy must never claim better than the data allows.
    @Test func outlierAmongFourStaysBounded() throws {
        let tag = SitePoint(x: 2, y: 3.5, z: 1)
        let observations = SyntheticSite.observations(SyntheticSite.square, tag: tag) { $0 == 1 ? 2.0 : 0 }
        let fix = try MultilaterationSolver(tagHeight: 1).solve(observations)
        let error = SyntheticSite.horizontalError(fix, tag)
        print("outlier +2 m, 4 gateways: error \(error) m, accuracy_m \(fix.accuracyM), used \(fix.usedGateways)")
        #expect(error < fix.accuracyM || error < 0.15)
    }

    @Test(arguments: tags)
    func nlosFlaggedLongRangeIsDownWeighted(tag: SitePoint) throws {
        let biased = { (i: Int) in i == 2 ? 0.8 : 0.0 }
        let flagged = try MultilaterationSolver(tagHeight: 1)
            .solve(SyntheticSite.observations(SyntheticSite.square, tag: tag, noise: biased, nlos: ["gw-c"]))
        let unflagged = try MultilaterationSolver(tagHeight: 1, options: Self.plainLeastSquares)
            .solve(SyntheticSite.observations(SyntheticSite.square, tag: tag, noise: biased))
        let e1 = SyntheticSite.horizontalError(flagged, tag), e2 = SyntheticSite.horizontalError(unflagged, tag)
        print("NLoS +0.8 m at \(tag): flagged error \(e1) m, unflagged (plain least squares) \(e2) m")
        #expect(e1 < 0.1)
        #expect(e1 < e2)
    }
}
