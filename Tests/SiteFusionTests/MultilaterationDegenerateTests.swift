import Vocabulary
import SiteFusion
import Testing
import TestSupport

/// Geometry that cannot determine a position gives no fix; geometry that determines it poorly gives
/// a large accuracy; never a fix from fewer gateways than the geometry needs.
@Suite struct MultilaterationDegenerateTests {
    @Test func threeCollinearGatewaysInTwoDimensions() {
        let line: [(String, SitePoint)] = [("a", SitePoint(x: 0, y: 0, z: 2.5)), ("b", SitePoint(x: 3, y: 0, z: 2.5)),
                                           ("c", SitePoint(x: 6, y: 0, z: 2.5))]
        let observations = SyntheticSite.observations(line, tag: SitePoint(x: 2, y: 3, z: 1))
        #expect(throws: MultilaterationError.degenerateGeometry(.collinearGateways)) {
            try MultilaterationSolver(tagHeight: 1).solve(observations)
        }
    }

    /// Gateways 2 to 30 cm off a line over 6 m, tag 3 m from the line, 5 cm noise. Up to 10 cm off,
    /// the mirror image across the line fits about as well: refused as collinear, or accepted with
    /// an accuracy that covers both images. Further off the middle range tells the images apart and
    /// the accuracy may be small — but it must stay honest (the true error below it).
    @Test(arguments: [0.02, 0.05, 0.1, 0.2, 0.3])
    func nearlyCollinearGatewaysReportLargeAccuracy(offset: Double) throws {
        let line: [(String, SitePoint)] = [("a", SitePoint(x: 0, y: 0, z: 2.5)), ("b", SitePoint(x: 3, y: offset, z: 2.5)),
                                           ("c", SitePoint(x: 6, y: 0, z: 2.5))]
        for seed in UInt64(1)...20 {
            var noise = SeededNoise(seed: seed)
            let tag = SitePoint(x: 2, y: 3, z: 1)
            let observations = SyntheticSite.observations(line, tag: tag, noise: { _ in noise.gaussian(sigma: 0.05) })
            do {
                let fix = try MultilaterationSolver(tagHeight: 1).solve(observations)
                if seed == 1 { print("nearly collinear, \(offset) m off: error \(SyntheticSite.horizontalError(fix, tag)) m, accuracy_m \(fix.accuracyM)") }
                if offset <= 0.1 { #expect(fix.accuracyM >= 1) }
                #expect(SyntheticSite.horizontalError(fix, tag) < fix.accuracyM)
            } catch {
                if seed == 1 { print("nearly collinear, \(offset) m off: \(error)") }
                #expect(error == .degenerateGeometry(.collinearGateways))
            }
        }
    }

    @Test(arguments: [SitePoint(x: 80, y: 3, z: 1), SitePoint(x: -60, y: -60, z: 1), SitePoint(x: 3, y: 80, z: 1)])
    func tagFarOutsideTheHullReportsLargeAccuracy(tag: SitePoint) throws {
        var noise = SeededNoise(seed: 3)
        let fix = try MultilaterationSolver(tagHeight: 1)
            .solve(SyntheticSite.observations(SyntheticSite.square, tag: tag, noise: { _ in noise.gaussian(sigma: 0.05) }))
        print("far outside \(tag): error \(SyntheticSite.horizontalError(fix, tag)) m, accuracy_m \(fix.accuracyM)")
        #expect(fix.accuracyM >= 1)
    }

    @Test func accuracyGrowsOutsideTheHull() throws {
        let solver = MultilaterationSolver(tagHeight: 1)
        let accuracies = try [3.0, 8.0, 15.0, 30.0].map { x in
            try solver.solve(SyntheticSite.observations(SyntheticSite.square, tag: SitePoint(x: x, y: 3, z: 1))).accuracyM
        }
        print("accuracy_m (noise-free, prior 0.1 m) at x = 3, 8, 15, 30 m: \(accuracies)")
        #expect(accuracies == accuracies.sorted())
        #expect(accuracies[0] < 0.15)
    }

    @Test func coplanarGatewaysCannotSolveZ() {
        let observations = SyntheticSite.observations(SyntheticSite.square, tag: SitePoint(x: 2, y: 3, z: 1))
        #expect(throws: MultilaterationError.degenerateGeometry(.coplanarGateways)) {
            try MultilaterationSolver().solve(observations)
        }
    }

    @Test func coincidentGateways() {
        let pile = (0..<4).map { ("g\($0)", SitePoint(x: 1, y: 1, z: 2.5)) }
        #expect(throws: MultilaterationError.degenerateGeometry(.coincidentGateways)) {
            try MultilaterationSolver(tagHeight: 1).solve(SyntheticSite.observations(pile, tag: SitePoint(x: 2, y: 2, z: 1)))
        }
    }

    @Test func tooFewGateways() {
        let tag = SitePoint(x: 2, y: 3, z: 1)
        #expect(throws: MultilaterationError.tooFewGateways(have: 2, need: 3)) {
            try MultilaterationSolver(tagHeight: 1).solve(SyntheticSite.observations(Array(SyntheticSite.square.prefix(2)), tag: tag))
        }
        #expect(throws: MultilaterationError.tooFewGateways(have: 3, need: 4)) {
            try MultilaterationSolver().solve(SyntheticSite.observations(Array(SyntheticSite.staggered.prefix(3)), tag: tag))
        }
        #expect(throws: MultilaterationError.tooFewGateways(have: 0, need: 3)) {
            try MultilaterationSolver(tagHeight: 1).solve([])
        }
    }

    @Test func invalidInputIsAnErrorNotANaN() {
        var observations = SyntheticSite.observations(SyntheticSite.square, tag: SitePoint(x: 2, y: 3, z: 1))
        observations[1].distanceM = .nan
        #expect(throws: MultilaterationError.invalidObservation(gatewayID: "gw-b")) {
            try MultilaterationSolver(tagHeight: 1).solve(observations)
        }
        observations[1].distanceM = 3
        observations[2].gatewayID = "gw-a"
        #expect(throws: MultilaterationError.duplicateGateway("gw-a")) {
            try MultilaterationSolver(tagHeight: 1).solve(observations)
        }
    }

    /// A tag exactly on a gateway, all-zero ranges, absurd ranges: a finite answer or a typed error.
    @Test(arguments: [[0.0, 0.0, 0.0, 0.0], [1e-12, 6, 8.49, 6], [100, 0, 100, 0], [0.1, 0.1, 0.1, 0.1], [1e9, 1e9, 1e9, 1e9]])
    func strangeRangesNeverGiveNaN(ranges: [Double]) {
        let observations = zip(SyntheticSite.square, ranges).map {
            RangeObservation(gatewayID: $0.0, gateway: $0.1, distanceM: $1)
        }
        for solver in [MultilaterationSolver(tagHeight: 2.5), MultilaterationSolver(tagHeight: 1)] {
            do {
                let fix = try solver.solve(observations)
                #expect(fix.point.isFinite && fix.accuracyM.isFinite && fix.residualRMS.isFinite)
            } catch {
                // A typed reason is an acceptable answer.
            }
        }
    }
}

/// Random layouts and ranges (including nonsense): every answer is a typed error or a finite fix
/// from at least as many gateways as the geometry needs. Ranges that no point can satisfy (they
/// break the triangle inequality) often have their least-squares infimum at infinity: the descent
/// walks away and the answer is `noConvergence`, which is the honest "no fix".
@Suite struct MultilaterationRandomInputTests {
    @Test func randomInputNeverTrapsOrGivesNaN() {
        var noise = SeededNoise(seed: 99)
        var fixes = 0, refusals: [String: Int] = [:]
        for trial in 0..<2000 {
            let count = Int(noise.next() % 7)
            let scale = [0.001, 1, 10, 1000][trial % 4]
            let observations = (0..<count).map { i in
                RangeObservation(gatewayID: "g\(i)",
                                 gateway: SitePoint(x: scale * noise.uniform(), y: scale * noise.uniform(),
                                                    z: trial % 3 == 0 ? 2.5 : scale * noise.uniform()),
                                 distanceM: scale * 2 * noise.uniform(), nlos: noise.next() % 4 == 0)
            }
            let solver = MultilaterationSolver(tagHeight: trial % 2 == 0 ? 1 : nil)
            do {
                let fix = try solver.solve(observations)
                fixes += 1
                #expect(fix.point.isFinite && fix.accuracyM.isFinite && fix.accuracyM > 0 && fix.residualRMS.isFinite)
                #expect(fix.usedGateways.count >= solver.requiredGateways)
            } catch {
                refusals[error.cause, default: 0] += 1
            }
        }
        print("random input: \(fixes) fixes, typed refusals \(refusals.sorted { $0.key < $1.key })")
    }
}
