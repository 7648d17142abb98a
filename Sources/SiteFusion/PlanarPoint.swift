/// A point on the site's floor plan (x, y in metres): a polygon vertex, or a position seen from above.
public struct PlanarPoint: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var description: String { "[\(x), \(y)]" }
}

extension PlanarPoint: Decodable {
    /// Decodes the config's `[x, y]` form: exactly two finite numbers.
    public init(from decoder: any Decoder) throws {
        var list = try decoder.unkeyedContainer()
        var values: [Double] = []
        while !list.isAtEnd { values.append(try list.decode(Double.self)) }
        guard values.count == 2, values[0].isFinite, values[1].isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "a polygon point is [x, y] with two finite numbers in metres, found \(values.count) value(s)"))
        }
        x = values[0]
        y = values[1]
    }
}
