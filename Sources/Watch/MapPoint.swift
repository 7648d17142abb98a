/// A point in the site frame, metres: x east, y north, as the fuse's config and positions write it.
public struct MapPoint: Sendable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}
