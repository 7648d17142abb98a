
/// A non-negative distance in metres, as the rules file writes it: a number of metres (`1.2`) or a
/// string with a unit (`60cm`, `1.2m`, `1200mm`).
///
/// Its own type rather than a bare `Double` so that a threshold can never be read in the wrong unit and
/// so that every distance in the file gets the same parsing and the same error message.
public struct Distance: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var meters: Double

    public init(meters: Double) { self.meters = meters }

    public static func < (lhs: Distance, rhs: Distance) -> Bool { lhs.meters < rhs.meters }

    /// `1.2 m`, for messages.
    public var description: String { "\(Self.format(meters)) m" }

    /// The number without a trailing `.0` for whole metres: messages quote the value as the user wrote it.
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// `60cm`, `1.2m`, `1200mm`; a plain number is metres.
    static let units: [(String, Double)] = [("mm", 0.001), ("cm", 0.01), ("m", 1)]

    /// Parses `60cm`, `1.2m`, `1200mm` (spaces allowed before the unit); nil when it is none of them.
    static func parse(_ text: String) -> Double? { RulesDecoding.quantity(text, units: units) }
}

extension Distance: Decodable {
    public init(from decoder: any Decoder) throws {
        meters = try RulesDecoding.quantity(decoder, units: Self.units, kind: "distance",
                                            examples: "1.2 (metres), 60cm, 1.2m or 1200mm")
    }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> String {
        var s = self
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
