/// A named area of the site's floor plan: a simple polygon in the site frame, with the hysteresis
/// and dwell that keep a noisy position hovering at its edge from flapping in and out.
///
/// The test is on x and y only (a zone is a floor area, whatever the tag's height). A position is
/// `hysteresis` metres inside the boundary before it counts as entering, and as far outside before
/// it counts as leaving; either change must then hold for `dwell` seconds.
public struct PolygonZone: Hashable, Sendable {
    public var name: String
    /// Vertices in order (either winding); the last connects back to the first.
    public var vertices: [PlanarPoint]
    /// Metres, ≥ 0.
    public var hysteresis: Double
    /// Seconds, ≥ 0.
    public var dwell: Double

    public init(name: String, vertices: [PlanarPoint], hysteresis: Double = 0, dwell: Double = 0) {
        self.name = name
        self.vertices = vertices
        self.hysteresis = hysteresis
        self.dwell = dwell
    }

    /// Whether `point` is inside (even–odd rule; points exactly on the boundary may go either way,
    /// which the hysteresis makes irrelevant).
    public func contains(_ point: PlanarPoint) -> Bool {
        guard vertices.count >= 3 else { return false }
        var inside = false
        var j = vertices.count - 1
        for i in vertices.indices {
            let a = vertices[i], b = vertices[j]
            if (a.y > point.y) != (b.y > point.y) {
                let crossingX = a.x + (point.y - a.y) / (b.y - a.y) * (b.x - a.x)
                if point.x < crossingX { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// Distance from `point` to the polygon's boundary: positive inside, negative outside. A polygon
    /// of fewer than 3 vertices has no inside: every point is outside (negative infinity).
    public func signedDistance(to point: PlanarPoint) -> Double {
        guard vertices.count >= 3 else { return -.infinity }
        var nearest = Double.infinity
        var j = vertices.count - 1
        for i in vertices.indices {
            nearest = min(nearest, Self.distance(from: point, toSegment: vertices[j], vertices[i]))
            j = i
        }
        return contains(point) ? nearest : -nearest
    }

    /// Twice the signed area over the vertices (shoelace): zero for a polygon with no area.
    var doubledArea: Double {
        var sum = 0.0
        var j = vertices.count - 1
        for i in vertices.indices {
            sum += vertices[j].x * vertices[i].y - vertices[i].x * vertices[j].y
            j = i
        }
        return sum
    }

    /// Whether two edges that share no vertex cross or touch (a figure-eight or bow-tie polygon,
    /// whose inside would be ambiguous to the people who drew it).
    var isSelfIntersecting: Bool {
        let n = vertices.count
        guard n >= 4 else { return false }
        for i in 0..<n {
            for j in (i + 1)..<n {
                let adjacent = j == i + 1 || (i == 0 && j == n - 1)
                if adjacent { continue }
                if Self.segmentsIntersect(vertices[i], vertices[(i + 1) % n], vertices[j], vertices[(j + 1) % n]) { return true }
            }
        }
        return false
    }

    static func distance(from p: PlanarPoint, toSegment a: PlanarPoint, _ b: PlanarPoint) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let lengthSquared = dx * dx + dy * dy
        // A zero-length edge (repeated vertex) is a point: no division by zero.
        let t = lengthSquared > 0 ? min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / lengthSquared)) : 0
        let cx = a.x + t * dx - p.x, cy = a.y + t * dy - p.y
        return (cx * cx + cy * cy).squareRoot()
    }

    static func segmentsIntersect(_ p1: PlanarPoint, _ p2: PlanarPoint, _ q1: PlanarPoint, _ q2: PlanarPoint) -> Bool {
        func cross(_ o: PlanarPoint, _ a: PlanarPoint, _ b: PlanarPoint) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        func onSegment(_ a: PlanarPoint, _ b: PlanarPoint, _ p: PlanarPoint) -> Bool {
            min(a.x, b.x) <= p.x && p.x <= max(a.x, b.x) && min(a.y, b.y) <= p.y && p.y <= max(a.y, b.y)
        }
        let d1 = cross(q1, q2, p1), d2 = cross(q1, q2, p2), d3 = cross(p1, p2, q1), d4 = cross(p1, p2, q2)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        if d1 == 0 && onSegment(q1, q2, p1) { return true }
        if d2 == 0 && onSegment(q1, q2, p2) { return true }
        if d3 == 0 && onSegment(p1, p2, q1) { return true }
        if d4 == 0 && onSegment(p1, p2, q2) { return true }
        return false
    }
}
