/// A point in the site frame, in metres: x and y on the floor plan, z up.
///
/// The site frame is whatever the installer measured the gateways' `gateway.position` in: the
/// agent's config, the simulator's scenarios and the fuse all use it as it is, so positions come
/// out in the same frame the gateways were placed in. Written in files as `{x, y, z}`.
public struct SitePoint: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double

    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// True when every coordinate is a finite number (a NaN or infinite pose is never used).
    @inlinable
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// Euclidean distance to `other`.
    @inlinable
    public func distance(to other: SitePoint) -> Double {
        let dx = x - other.x, dy = y - other.y, dz = z - other.z
        return (dx * dx + dy * dy + dz * dz).squareRoot()
    }

    /// The point a fraction `f` of the way to `other` (a straight walk between two points).
    public func interpolated(to other: SitePoint, _ f: Double) -> SitePoint {
        SitePoint(x: x + (other.x - x) * f, y: y + (other.y - y) * f, z: z + (other.z - z) * f)
    }

    public var description: String { "(\(x), \(y), \(z))" }
}

extension SitePoint: Decodable {}
