/// Reads one JSON object that another client published — a gateway's `status` or `range` as the
/// fuse reads them, any payload `watch` shows — field by field, each number checked against the
/// bounds its meaning allows where it is read. Anyone on the broker can publish `1e308` as a
/// coordinate or a year-ahead `ts`; a value outside its bounds, a member of the wrong type or a
/// text that is no JSON object rejects the whole message with a `PayloadRejection` that names the
/// field, so that a reader counts it and says so instead of trapping on a conversion later.
///
/// A member that is absent or `null` reads as nil: payloads say "unknown" with `null`.
public struct PayloadReader: Sendable {
    /// The object read.
    public let value: JSONValue
    /// Where this object lies in the payload (`position.`), for naming a field.
    private let path: String

    /// The payload's bytes, which must hold one JSON object.
    public init(bytes: some Collection<UInt8>) throws(PayloadRejection) {
        let value: JSONValue
        do { value = try JSONReader.value(bytes) } catch { throw PayloadRejection(field: nil, problem: .notJSON(error)) }
        try self.init(value, path: "")
    }

    /// An object already read; `path` names it in rejections (`"position."`).
    public init(_ value: JSONValue, path: String = "") throws(PayloadRejection) {
        guard value.isObject else {
            throw PayloadRejection(field: path.isEmpty ? nil : String(path.dropLast()), problem: .wrongType(expected: "an object"))
        }
        self.value = value
        self.path = path
    }

    private func present(_ key: String) -> JSONValue? {
        switch value[key] {
        case nil, .null?: nil
        case let member?: member
        }
    }

    private func rejection(_ key: String, _ problem: PayloadRejection.Problem) -> PayloadRejection {
        PayloadRejection(field: path + key, problem: problem)
    }

    public func string(_ key: String) throws(PayloadRejection) -> String? {
        guard let member = present(key) else { return nil }
        guard case let .string(text) = member else { throw rejection(key, .wrongType(expected: "a string")) }
        return text
    }

    public func bool(_ key: String) throws(PayloadRejection) -> Bool? {
        guard let member = present(key) else { return nil }
        guard case let .bool(flag) = member else { throw rejection(key, .wrongType(expected: "true or false")) }
        return flag
    }

    /// A number within `bounds`.
    public func number(_ key: String, in bounds: PayloadBounds) throws(PayloadRejection) -> Double? {
        guard let member = present(key) else { return nil }
        return try Self.number(member, in: bounds) { problem throws(PayloadRejection) in throw rejection(key, problem) }
    }

    /// A whole number within `bounds`, as an `Int` (which every value of such bounds fits).
    public func integer(_ key: String, in bounds: PayloadBounds) throws(PayloadRejection) -> Int? {
        guard let number = try number(key, in: bounds) else { return nil }
        guard number == number.rounded() else { throw rejection(key, .notWhole) }
        return Int(number)
    }

    /// A nested object, read with the same care.
    public func object(_ key: String) throws(PayloadRejection) -> PayloadReader? {
        guard let member = present(key) else { return nil }
        return try PayloadReader(member, path: path + key + ".")
    }

    /// A list's items, unread: each is read with ``numbers(_:in:)``, ``objects(_:)`` or ``strings(_:)``.
    public func list(_ key: String) throws(PayloadRejection) -> [JSONValue]? {
        guard let member = present(key) else { return nil }
        guard case let .list(items) = member else { throw rejection(key, .wrongType(expected: "a list")) }
        return items
    }

    /// A list of strings.
    public func strings(_ key: String) throws(PayloadRejection) -> [String]? {
        guard let items = try list(key) else { return nil }
        var texts: [String] = []
        texts.reserveCapacity(items.count)
        for item in items {
            guard case let .string(text) = item else { throw rejection(key, .wrongType(expected: "a list of strings")) }
            texts.append(text)
        }
        return texts
    }

    /// A list of objects.
    public func objects(_ key: String) throws(PayloadRejection) -> [PayloadReader]? {
        guard let items = try list(key) else { return nil }
        var readers: [PayloadReader] = []
        readers.reserveCapacity(items.count)
        for (index, item) in items.enumerated() { readers.append(try PayloadReader(item, path: "\(path)\(key)[\(index)].")) }
        return readers
    }

    /// A list of numbers, each within `bounds` (`[x, y]` corners).
    public func numbers(_ key: String, in bounds: PayloadBounds) throws(PayloadRejection) -> [Double]? {
        guard let items = try list(key) else { return nil }
        var numbers: [Double] = []
        numbers.reserveCapacity(items.count)
        for item in items {
            numbers.append(try Self.number(item, in: bounds) { problem throws(PayloadRejection) in throw rejection(key, problem) })
        }
        return numbers
    }

    /// A list item that is a list of numbers (a polygon's corner), each within `bounds`.
    public static func numbers(_ item: JSONValue, in bounds: PayloadBounds, field: String) throws(PayloadRejection) -> [Double] {
        guard case let .list(values) = item else { throw PayloadRejection(field: field, problem: .wrongType(expected: "a list of numbers")) }
        var numbers: [Double] = []
        for value in values {
            numbers.append(try number(value, in: bounds) { problem throws(PayloadRejection) in
                throw PayloadRejection(field: field, problem: problem)
            })
        }
        return numbers
    }

    private static func number(_ value: JSONValue, in bounds: PayloadBounds,
                               fail: (PayloadRejection.Problem) throws(PayloadRejection) -> Never) throws(PayloadRejection) -> Double {
        let number: Double
        switch value {
        case let .int(whole): number = Double(whole)
        case let .double(fraction): number = fraction
        default: try fail(.wrongType(expected: "a number"))
        }
        // JSONReader refuses what overflows a Double; a JSONValue made otherwise may still hold one.
        guard number.isFinite else { try fail(.notFinite) }
        guard bounds.range.contains(number) else { try fail(.outOfRange(bounds)) }
        return number
    }
}

/// Why a payload was not taken: which field, and what was wrong with it.
public struct PayloadRejection: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        case notJSON(JSONReader.Failure)
        case wrongType(expected: String)
        case notFinite
        case notWhole
        case outOfRange(PayloadBounds)
    }

    /// The member, as a path (`position.x`, `zones[2].polygon`); nil for the payload as a whole.
    public let field: String?
    public let problem: Problem

    public init(field: String?, problem: Problem) {
        self.field = field
        self.problem = problem
    }

    /// A short name of the cause, the same for every message rejected the same way (for counting
    /// and for a log line once per cause): `not JSON`, `ranging_interval_ms out of range`.
    public var cause: String {
        let subject = field ?? "payload"
        switch problem {
        case .notJSON: return "not JSON"
        case .wrongType: return "\(subject) of the wrong type"
        case .notFinite: return "\(subject) not finite"
        case .notWhole: return "\(subject) not a whole number"
        case .outOfRange: return "\(subject) out of range"
        }
    }

    public var description: String {
        let subject = field.map { "\"\($0)\"" } ?? "the payload"
        switch problem {
        case let .notJSON(failure): return "not JSON: \(failure)"
        case let .wrongType(expected): return "\(subject) is not \(expected)"
        case .notFinite: return "\(subject) is not a finite number"
        case .notWhole: return "\(subject) is not a whole number"
        case let .outOfRange(bounds): return "\(subject) is outside \(bounds)"
        }
    }
}

/// The numbers a payload may carry for one meaning, and the unit they are in. Wide enough for any
/// real site, gateway or device, narrow enough that whatever is computed from them (a map's
/// scale, a window in milliseconds, a count as an `Int`) stays finite and fits.
public struct PayloadBounds: Equatable, Sendable, CustomStringConvertible {
    public let range: ClosedRange<Double>
    public let unit: String

    public init(_ range: ClosedRange<Double>, unit: String) {
        self.range = range
        self.unit = unit
    }

    /// Site-frame coordinates and gateway positions: a site of up to 100 km across.
    public static let siteMetres = PayloadBounds(-100_000...100_000, unit: "m")
    /// A measured distance: UWB reaches a few hundred metres; a negative one is the device's
    /// `OK_NEGATIVE_DISTANCE_REPORT`.
    public static let distanceMetres = PayloadBounds(-1_000...100_000, unit: "m")
    /// A fix's accuracy or a zone's hysteresis.
    public static let accuracyMetres = PayloadBounds(0...100_000, unit: "m")
    /// A ranging round's interval: FiRa's field is milliseconds; a round slower than a minute is
    /// no ranging a site can fuse.
    public static let rangingIntervalMilliseconds = PayloadBounds(1...60_000, unit: "ms")
    /// Durations a payload reports (a dwell, an uptime): up to ten years, in milliseconds or seconds.
    public static let durationMilliseconds = PayloadBounds(0...315_576_000_000, unit: "ms")
    public static let durationSeconds = PayloadBounds(0...315_576_000, unit: "s")
    /// Counters and counts (`measurements`, `dropped`, `gateways_in_range`, a line number).
    public static let count = PayloadBounds(0...1_000_000_000_000_000, unit: "")
    /// A fraction such as `progress`.
    public static let fraction = PayloadBounds(0...1, unit: "")
    /// Angles in degrees.
    public static let degrees = PayloadBounds(-360...360, unit: "°")

    public var description: String {
        func text(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e16 ? String(Int64(value)) : String(value)
        }
        return "\(text(range.lowerBound))…\(text(range.upperBound))\(unit.isEmpty ? "" : " " + unit)"
    }
}
