import YAMLCoding

/// A JSON-like value from the rules file — stage attributes and cues — kept with its keys in file order.
///
/// The engine never interprets these values (except a band's `facing_tolerance_deg`); it hands them
/// to consumers in `feedback` and `event` payloads. File order is kept so that what a rule editor
/// wrote is what a subscriber sees. Whole numbers stay ``int`` so that `90` is published as `90`,
/// not `90.0`. ``json`` renders the value; the integrator may also walk the cases itself.
public enum RuleValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case list([RuleValue])
    /// A mapping; keys are unique and in file order.
    case object([Field])

    /// One `key: value` pair of an ``object``.
    public struct Field: Hashable, Sendable {
        public var key: String
        public var value: RuleValue
        public init(_ key: String, _ value: RuleValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value at `key` of an object; nil for other cases or a missing key.
    public subscript(key: String) -> RuleValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.key == key }?.value
    }

    /// The value as a number, for `int` and `double`.
    public var number: Double? {
        switch self {
        case .int(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// True for an ``object``.
    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// Compact JSON text with keys in their stored order. Non-finite doubles (YAML allows `.inf`),
    /// which JSON cannot carry, become `null`.
    public var json: String {
        var out = ""
        write(into: &out)
        return out
    }

    private func write(into out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? (d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)) : "null"
        case .string(let s): Self.writeString(s, into: &out)
        case .list(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (i, field) in fields.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(field.key, into: &out)
                out += ":"
                field.value.write(into: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for c in s.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if c.value < 0x20 {
                    let hex = String(c.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        out += "\""
    }
}

extension RuleValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension RuleValue: Decodable {
    public init(from decoder: any Decoder) throws {
        if let node = YAMLDecoder.node(of: decoder) {
            switch node.content {
            case .mapping: self = try Self.object(decoder)
            case .sequence: self = try Self.list(decoder)
            case .scalar(let s):
                self = s.style == .plain ? try Self.scalar(decoder) : .string(s.text)
            }
            return
        }
        // Another decoder (JSON): try the shapes in turn.
        if let object = try? Self.object(decoder) { self = object }
        else if let list = try? Self.list(decoder) { self = list }
        else { self = try Self.scalar(decoder) }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static func object(_ decoder: any Decoder) throws -> RuleValue {
        let c = try decoder.container(keyedBy: AnyKey.self)
        return .object(try c.allKeys.map { Field($0.stringValue, try c.decode(RuleValue.self, forKey: $0)) })
    }

    private static func list(_ decoder: any Decoder) throws -> RuleValue {
        var c = try decoder.unkeyedContainer()
        var items: [RuleValue] = []
        while !c.isAtEnd { items.append(try c.decode(RuleValue.self)) }
        return .list(items)
    }

    private static func scalar(_ decoder: any Decoder) throws -> RuleValue {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { return .null }
        if let b = try? c.decode(Bool.self) { return .bool(b) }
        if let i = try? c.decode(Int.self) { return .int(i) }
        if let d = try? c.decode(Double.self) { return .double(d) }
        return .string(try c.decode(String.self))
    }
}
