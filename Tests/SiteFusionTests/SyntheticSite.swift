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
