import Vocabulary
import SiteFusion

/// Gateway layouts and exact ranges for the solver tables.
enum SyntheticSite {
    /// A 6 m square of four gateways at 2.5 m (the typical ceiling install, used for 2-D fixes).
    static let square: [(String, SitePoint)] = [
        ("gw-a", SitePoint(x: 0, y: 0, z: 2.5)), ("gw-b", SitePoint(x: 6, y: 0, z: 2.5)),
        ("gw-c", SitePoint(x: 6, y: 6, z: 2.5)), ("gw-d", SitePoint(x: 0, y: 6, z: 2.5)),
    ]

    /// The square plus a fifth gateway inside it, off both diagonals (for outlier rejection). Not
    /// on a side: three nearly collinear gateways plus an outlier can agree on the mirror image of
    /// the tag as well as the others agree on the tag, and no robust fit can tell which is right.
    static let pentagon: [(String, SitePoint)] = square + [("gw-e", SitePoint(x: 4.5, y: 3, z: 2.4))]

    /// Four gateways at alternating heights (2.5 m and 0.5 m): free z needs them out of one plane.
    static let staggered: [(String, SitePoint)] = [
        ("gw-a", SitePoint(x: 0, y: 0, z: 2.5)), ("gw-b", SitePoint(x: 6, y: 0, z: 0.5)),
        ("gw-c", SitePoint(x: 6, y: 6, z: 2.5)), ("gw-d", SitePoint(x: 0, y: 6, z: 0.5)),
    ]

    /// The site: 8 m × 6 m, a gateway in each corner at 2.2–2.6 m.
    static let hall: [(String, SitePoint)] = [
        ("gw-a", SitePoint(x: 0, y: 0, z: 2.2)), ("gw-b", SitePoint(x: 8, y: 0, z: 2.6)),
        ("gw-c", SitePoint(x: 8, y: 6, z: 2.4)), ("gw-d", SitePoint(x: 0, y: 6, z: 2.5)),
    ]

    /// The hall with up to four more gateways in the middle of its walls (5 to 8 in all).
    static func hall(gateways count: Int) -> [(String, SitePoint)] {
        let walls: [(String, SitePoint)] = [
            ("gw-e", SitePoint(x: 4, y: 0, z: 2.3)), ("gw-f", SitePoint(x: 8, y: 3, z: 2.5)),
            ("gw-g", SitePoint(x: 4, y: 6, z: 2.2)), ("gw-h", SitePoint(x: 0, y: 3, z: 2.6)),
        ]
        return hall + walls.prefix(max(0, count - hall.count))
    }

    /// Tag positions spread over the hall, from the middle to half a metre from the walls.
    static let hallPoints: [SitePoint] = [1.0, 2.5, 4.0, 5.5, 7.0].flatMap { x in
        [1.0, 3.0, 5.0].map { y in SitePoint(x: x, y: y, z: 1) }
    } + [SitePoint(x: 0.5, y: 0.5, z: 1), SitePoint(x: 7.5, y: 5.5, z: 1)]

    static func observations(_ gateways: [(String, SitePoint)], tag: SitePoint, noise: (Int) -> Double = { _ in 0 },
                             nlos: Set<String> = []) -> [RangeObservation] {
        gateways.enumerated().map { i, g in
            RangeObservation(gatewayID: g.0, gateway: g.1, distanceM: max(0, tag.distance(to: g.1) + noise(i)),
                             nlos: nlos.contains(g.0))
        }
    }

    static func horizontalError(_ fix: MultilaterationFix, _ tag: SitePoint) -> Double {
        ((fix.x - tag.x) * (fix.x - tag.x) + (fix.y - tag.y) * (fix.y - tag.y)).squareRoot()
    }
}
