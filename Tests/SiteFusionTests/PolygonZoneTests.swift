import SiteFusion
import Testing

/// Point-in-polygon and signed distance to the boundary, on convex and concave shapes.
@Suite struct PolygonZoneTests {
    static let checkout = PolygonZone(name: "checkout", vertices: [PlanarPoint(x: 0, y: 0), PlanarPoint(x: 2, y: 0),
                                                                   PlanarPoint(x: 2, y: 1.5), PlanarPoint(x: 0, y: 1.5)])
    /// An L shape (concave): the notch at the top right is outside.
    static let ell = PolygonZone(name: "ell", vertices: [PlanarPoint(x: 0, y: 0), PlanarPoint(x: 4, y: 0), PlanarPoint(x: 4, y: 1),
                                                         PlanarPoint(x: 1, y: 1), PlanarPoint(x: 1, y: 4), PlanarPoint(x: 0, y: 4)])

    @Test(arguments: [
        (1.0, 0.75, 0.75), (0.1, 0.75, 0.1), (1.0, 1.4, 0.1), (3.0, 0.75, -1.0), (-1.0, -1.0, -(2.0).squareRoot()),
        (2.0, 0.5, 0.0), (1.0, 2.0, -0.5),
    ])
    func rectangle(x: Double, y: Double, expected: Double) {
        let d = Self.checkout.signedDistance(to: PlanarPoint(x: x, y: y))
        #expect(abs(d - expected) < 1e-12, "(\(x), \(y)) → \(d)")
    }

    @Test(arguments: [(0.5, 0.5, 0.5), (3, 0.5, 0.5), (0.5, 3, 0.5), (2, 2, -1.0), (1.5, 1.5, -0.5), (5, 0.5, -1.0)])
    func concave(x: Double, y: Double, expected: Double) {
        let d = Self.ell.signedDistance(to: PlanarPoint(x: x, y: y))
        #expect(abs(d - expected) < 1e-12, "(\(x), \(y)) → \(d)")
        #expect(Self.ell.contains(PlanarPoint(x: x, y: y)) == (expected > 0))
    }

    @Test func windingDoesNotMatter() {
        let reversed = PolygonZone(name: "r", vertices: Self.checkout.vertices.reversed())
        for p in [PlanarPoint(x: 1, y: 1), PlanarPoint(x: 5, y: 1), PlanarPoint(x: 0.2, y: 1.45)] {
            #expect(reversed.signedDistance(to: p) == Self.checkout.signedDistance(to: p))
        }
    }

    @Test func repeatedVerticesAndTooFewAreSafe() {
        let repeated = PolygonZone(name: "r", vertices: [PlanarPoint(x: 0, y: 0), PlanarPoint(x: 0, y: 0), PlanarPoint(x: 2, y: 0),
                                                         PlanarPoint(x: 2, y: 2), PlanarPoint(x: 0, y: 2)])
        #expect(repeated.signedDistance(to: PlanarPoint(x: 1, y: 1)) == 1)
        let line = PolygonZone(name: "l", vertices: [PlanarPoint(x: 0, y: 0), PlanarPoint(x: 2, y: 0)])
        #expect(line.signedDistance(to: PlanarPoint(x: 1, y: 0)) == -.infinity)
        #expect(!line.contains(PlanarPoint(x: 1, y: 0)))
    }
}
