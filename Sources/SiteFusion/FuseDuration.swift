/// A duration as the fuse config writes it: `150ms`, `2s`, `1m`, `1h`, or a number of seconds —
/// the same forms as the agent's config and rules files.
///
/// Parsed here (not with the agent's `ConfigDuration`) because this target imports only the
/// standard library; the forms accepted are the same.
public struct FuseDuration: Hashable, Sendable, Decodable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            guard number.isFinite else { throw Self.invalid(decoder, "\(number)") }
            // Sign is checked by validate(), which names the key.
            seconds = number
            return
        }
        let text = try container.decode(String.self)
        guard let value = Self.parse(text) else { throw Self.invalid(decoder, text) }
        seconds = value
    }

    /// Seconds from `300ms`, `2s`, `1.5m`, `1h` or a bare number; nil for anything else.
    public static func parse(_ text: String) -> Double? {
        let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for (unit, factor) in units where trimmed.hasSuffix(unit) {
            let number = String(trimmed.dropLast(unit.count)).filter { !$0.isWhitespace }
            if let value = Double(number), value.isFinite { return value * factor }
            return nil
        }
        if let value = Double(trimmed), value.isFinite { return value }
        return nil
    }

    private static func invalid(_ decoder: any Decoder, _ text: String) -> any Error {
        DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
            debugDescription: "expected a duration such as 150ms, 2s or 1m, found \"\(text)\""))
    }

    public var description: String {
        abs(seconds) < 1 ? "\(Int((seconds * 1000).rounded()))ms" : "\(seconds)s"
    }
}
