/// A point in the site frame: metres, the same frame as every gateway's `gateway.position`
/// and as the positions `uwb2mqtt fuse` publishes.
///
/// The simulator needs it twice: a peer's path may be given in site coordinates, and the
/// simulated device then needs its own gateway's position to turn where the peer is into the
/// distance this one gateway would measure. That is how several simulated gateways, each in its
/// own process, report mutually consistent ranges that a fusion service can solve.
public struct SitePosition: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var z: Double

    /// `z` defaults to 1.0 m: about where a phone or a badge is carried, which is what a
    /// scenario author usually means when giving only a floor-plan point.
    public init(x: Double, y: Double, z: Double = SitePosition.defaultHeight) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// Height of a site-frame keyframe that gives no `z`, metres.
    public static let defaultHeight = 1.0

    /// Straight-line distance, metres: what an ideal two-way ranging round measures.
    public func distance(to other: SitePosition) -> Double {
        let dx = x - other.x, dy = y - other.y, dz = z - other.z
        return (dx * dx + dy * dy + dz * dz).squareRoot()
    }

    /// The point a fraction `f` of the way to `other` (a straight walk between keyframes).
    func interpolated(to other: SitePosition, _ f: Double) -> SitePosition {
        SitePosition(x: x + (other.x - x) * f, y: y + (other.y - y) * f, z: z + (other.z - z) * f)
    }

    var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}
