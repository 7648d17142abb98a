import YAMLCoding

/// A non-negative duration, as the rules file writes it: `300ms`, `2s`, `1m` or a number of seconds.
///
/// The engine works in `Double` seconds (the timestamps it is given are seconds since the epoch); this
/// type exists for parsing and for the `dwell_ms` an event reports.
public struct RuleDuration: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    public static func < (lhs: RuleDuration, rhs: RuleDuration) -> Bool { lhs.seconds < rhs.seconds }

    /// Whole milliseconds, as events report a dwell (saturating: a dwell of 1e300 s must not trap).
    public var milliseconds: Int {
        let ms = (seconds * 1000).rounded()
        return ms < 9.2e18 ? Int(ms) : Int.max
    }

    public var description: String { seconds < 1 ? "\(milliseconds)ms" : "\(Distance.format(seconds))s" }

    /// `300ms`, `2s`, `1m` (minutes); a plain number is seconds.
    static let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60)]

    /// Parses `300ms`, `2s`, `1m` (minutes); nil when it is none of them.
    static func parse(_ text: String) -> Double? { RulesDecoding.quantity(text, units: units) }
}

extension RuleDuration: Decodable {
    public init(from decoder: any Decoder) throws {
        seconds = try RulesDecoding.quantity(decoder, units: Self.units, kind: "duration",
                                             examples: "300ms, 2s, 1m or a number of seconds")
    }
}
