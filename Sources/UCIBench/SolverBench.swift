// The fuse's solver in process: one fix of a tag from 4, 6 and 8 gateways (2-D with a tag
// height, as the README's example), 5 cm noise and an unflagged 0.9 m outlier on one gateway in
// every other fix. The solver fits every subset that leaves out up to two ranges whatever the
// data, so the time per fix depends on the number of gateways, not on whether there is an outlier.
import Vocabulary
import SiteFusion

struct SolverFigure: Sendable {
    var gateways: Int
    var microsecondsPerFix: Double
}

func benchSolver() -> [SolverFigure] {
    let walls: [SitePoint] = [
        SitePoint(x: 0, y: 0, z: 2.2), SitePoint(x: 8, y: 6, z: 2.4), SitePoint(x: 8, y: 0, z: 2.6), SitePoint(x: 0, y: 6, z: 2.5),
        SitePoint(x: 4, y: 0, z: 2.3), SitePoint(x: 4, y: 6, z: 2.2), SitePoint(x: 8, y: 3, z: 2.5), SitePoint(x: 0, y: 3, z: 2.6),
    ]
    let solver = MultilaterationSolver(tagHeight: 1)
    var state: UInt64 = 7
    func uniform() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
    return [4, 6, 8].map { count in
        let gateways = Array(walls.prefix(count))
        // 64 fixes at points spread over the 8 m × 6 m hall, cycled by the timed loop.
        let fixes: [[RangeObservation]] = (0..<64).map { k in
            let tag = SitePoint(x: 0.5 + 7 * uniform(), y: 0.5 + 5 * uniform(), z: 1)
            return gateways.enumerated().map { i, g in
                // Sum of uniforms: near-Gaussian noise of about 5 cm without a math library.
                let noise = ((0..<12).reduce(0) { acc, _ in acc + uniform() } - 6) * 0.05
                let outlier = k % 2 == 0 && i == k % count ? 0.9 : 0
                return RangeObservation(gatewayID: "gw-\(i)", gateway: g, distanceM: tag.distance(to: g) + noise + outlier)
            }
        }
        let r = measure { n in
            var checksum: UInt64 = 0
            for k in 0..<n {
                if let fix = try? solver.solve(fixes[k & 63]) { checksum &+= UInt64(fix.usedGateways.count) } else { checksum &+= 1000 }
            }
            return checksum
        }
        let us = r.seconds * 1e6 / Double(r.iterations)
        log("(e) MultilaterationSolver, \(count) gateways: \(format(us, 1)) µs/fix [\(r.iterations) fixes in \(format(r.seconds, 3)) s, checksum \(r.checksum)]")
        return SolverFigure(gateways: count, microsecondsPerFix: us)
    }
}
