/// A duration as the config, rules and fuse files write it: `300ms`, `2s`, `1.5min` (or `1m`),
/// `1h` — a space between the number and the unit is allowed — or a plain number of seconds.
/// Never negative. One grammar and one wording of its errors for every file.
///
/// Decoded through `YAMLDecoder`, its errors come back at the value's `file:line:column`.
public struct TimeSpan: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) { self.seconds = seconds }

    public static func < (lhs: TimeSpan, rhs: TimeSpan) -> Bool { lhs.seconds < rhs.seconds }

    /// Longest first, so that `ms` is not read as `s` and `min` not as a number followed by `in`.
    static let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600)]

    /// Why a text is not a duration, in the words every file's error uses.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notADuration(String)
        case negative(String)

        public var description: String {
            switch self {
            case let .notADuration(text): "expected a duration such as 300ms, 2s, 1min, 1h or a number of seconds, found \(Excerpt.quoted(text))"
            case let .negative(text): "a duration cannot be negative, found \(Excerpt.quoted(text))"
            }
        }
    }

    /// The seconds `text` stands for, or why it does not.
    public static func parse(_ text: String) -> Result<TimeSpan, Problem> {
        let trimmed = text.trimmingSpaces()
        var number = trimmed
        var factor = 1.0
        if let unit = units.first(where: { trimmed.hasSuffix($0.suffix) }) {
            number = String(trimmed.dropLast(unit.suffix.count)).trimmingSpaces()
            factor = unit.seconds
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == "e" || $0 == "E" }),
              let value = Double(number), value.isFinite else {
            return .failure(.notADuration(text))
        }
        guard value >= 0 else { return .failure(.negative(text)) }
        return .success(TimeSpan(seconds: value * factor))
    }

    /// Whole milliseconds, as events report a dwell (saturating: 1e300 s must not trap).
    public var milliseconds: Int {
        let ms = (seconds * 1000).rounded()
        return ms < 9.2e18 ? Int(ms) : Int.max
    }

    public var description: String {
        if seconds < 1 { return "\(milliseconds)ms" }
        return seconds == seconds.rounded() && seconds < 1e15 ? "\(Int(seconds))s" : "\(seconds)s"
    }
}

extension TimeSpan: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text: String
        if let number = try? container.decode(Double.self) {
            guard number.isFinite else { throw Self.corrupted(decoder, .notADuration("\(number)")) }
            guard number >= 0 else { throw Self.corrupted(decoder, .negative(Self.plain(number))) }
            self.init(seconds: number)
            return
        } else {
            text = try container.decode(String.self)
        }
        switch Self.parse(text) {
        case let .success(span): self = span
        case let .failure(problem): throw Self.corrupted(decoder, problem)
        }
    }

    private static func corrupted(_ decoder: any Decoder, _ problem: Problem) -> DecodingError {
        .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: problem.description))
    }

    /// `-1` rather than `-1.0`, as the file wrote it.
    private static func plain(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? "\(Int(number))" : "\(number)"
    }
}

extension String {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
