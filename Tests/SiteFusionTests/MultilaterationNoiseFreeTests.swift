import Vocabulary
import SiteFusion
import Testing

/// Exact ranges must give the exact position back, inside and outside the gateways' hull.
@Suite struct MultilaterationNoiseFreeTests {
    static let planarTags: [SitePoint] = [
        SitePoint(x: 3, y: 3, z: 1), SitePoint(x: 0.5, y: 5.2, z: 1), SitePoint(x: 5.9, y: 0.1, z: 1),
        SitePoint(x: 2, y: 4.5, z: 1), SitePoint(x: 8, y: 3, z: 1), SitePoint(x: -3, y: -2, z: 1),
        SitePoint(x: 12, y: 10, z: 1), SitePoint(x: 6, y: 6, z: 1),
    ]

    @Test(arguments: planarTags)
    func planarFixWithinOneCentimetre(tag: SitePoint) throws {
        let solver = MultilaterationSolver(tagHeight: tag.z)
        let fix = try solver.solve(SyntheticSite.observations(SyntheticSite.square, tag: tag))
        #expect(fix.point.distance(to: tag) < 0.01, "fix \(fix.point) for \(tag)")
        #expect(fix.z == tag.z)
        #expect(!fix.solvedZ)
        #expect(fix.usedGateways.count == 4)
        #expect(fix.residualRMS < 1e-6)
    }

    @Test(arguments: [
        SitePoint(x: 3, y: 3, z: 1), SitePoint(x: 1, y: 5, z: 0.2), SitePoint(x: 4.5, y: 1.5, z: 2.0),
        SitePoint(x: 8, y: 2, z: 1.2), SitePoint(x: -2, y: 7, z: 1.5), SitePoint(x: 3, y: 3, z: 1.5),
    ])
    func spatialFixWithinOneCentimetre(tag: SitePoint) throws {
        let fix = try MultilaterationSolver().solve(SyntheticSite.observations(SyntheticSite.staggered, tag: tag))
        #expect(fix.point.distance(to: tag) < 0.01, "fix \(fix.point) for \(tag)")
        #expect(fix.solvedZ)
    }

    @Test func threeGatewaysSufficeInTwoDimensions() throws {
        let tag = SitePoint(x: 2, y: 2, z: 1)
        let fix = try MultilaterationSolver(tagHeight: 1).solve(SyntheticSite.observations(Array(SyntheticSite.square.prefix(3)), tag: tag))
        #expect(fix.point.distance(to: tag) < 0.01)
    }
}
