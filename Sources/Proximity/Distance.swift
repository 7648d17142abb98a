import YAMLCoding

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

    /// Parses `60cm`, `1.2m`, `1200mm` (spaces allowed before the unit); nil when it is none of them.
    static func parse(_ text: String) -> Double? {
        let units: [(String, Double)] = [("mm", 0.001), ("cm", 0.01), ("m", 1)]
        for (unit, factor) in units where text.hasSuffix(unit) {
            let number = text.dropLast(unit.count).trimmingCharacters(in: " ")
            guard !number.isEmpty, let value = Double(number), value.isFinite else { return nil }
            return value * factor
        }
        return nil
    }
}

extension Distance: Decodable {
    public init(from decoder: any Decoder) throws {
        let mark = RulesDecoding.mark(of: decoder)
        var value: Double?
        if RulesDecoding.isPlainScalar(decoder), let number = try? decoder.singleValueContainer().decode(Double.self) {
            value = number
        } else if let text = RulesDecoding.scalarText(decoder) {
            value = Self.parse(text)
        }
        guard let value, value.isFinite else {
            throw YAMLError(at: mark, "expected a distance such as 1.2 (metres), 60cm, 1.2m or 1200mm, found \(RulesDecoding.found(decoder))",
                            kind: .typeMismatch)
        }
        guard value >= 0 else {
            throw YAMLError(at: mark, "a distance cannot be negative, found \(RulesDecoding.found(decoder))")
        }
        meters = value
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
