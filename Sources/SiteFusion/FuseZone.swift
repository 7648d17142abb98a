import Vocabulary

/// One entry of the fuse config's `zones`: a polygon in the site frame with hysteresis and dwell.
/// `hysteresis` and `dwell` default to 0 (fire on the first position past the boundary), as the
/// agent's distance zones default `dwell` to 0.
public struct FuseZone: Hashable, Sendable, Decodable {
    public var name: String
    public var polygon: [PlanarPoint]
    /// Metres.
    public var hysteresis: Double
    public var dwell: TimeSpan

    enum CodingKeys: String, CodingKey { case name, polygon, hysteresis, dwell }

    public init(name: String, polygon: [PlanarPoint], hysteresis: Double = 0, dwell: TimeSpan = TimeSpan(seconds: 0)) {
        self.name = name
        self.polygon = polygon
        self.hysteresis = hysteresis
        self.dwell = dwell
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        polygon = try c.decode([PlanarPoint].self, forKey: .polygon)
        hysteresis = try c.decodeIfPresent(Double.self, forKey: .hysteresis) ?? 0
        dwell = try c.decodeIfPresent(TimeSpan.self, forKey: .dwell) ?? TimeSpan(seconds: 0)
    }

    public var polygonZone: PolygonZone {
        PolygonZone(name: name, vertices: polygon, hysteresis: hysteresis, dwell: dwell.seconds)
    }

    func problems(path: String) -> [FuseConfigurationError.Problem] {
        var problems: [FuseConfigurationError.Problem] = []
        func problem(_ key: String, _ message: String) { problems.append(.init(path: "\(path).\(key)", message: message)) }
        if name.isEmpty { problem("name", "must not be empty") }
        if polygon.count < 3 {
            problem("polygon", "needs at least 3 points, found \(polygon.count)")
        } else if !polygon.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) {
            problem("polygon", "points must be finite numbers")
        } else if polygonZone.isSelfIntersecting {
            problem("polygon", "crosses itself; list the points in order around the area")
        } else if abs(polygonZone.doubledArea) < 1e-9 {
            problem("polygon", "has no area (its points are on one line)")
        }
        if !(hysteresis >= 0) || !hysteresis.isFinite { problem("hysteresis", "must be 0 or more metres, found \(hysteresis)") }
        return problems
    }
}
