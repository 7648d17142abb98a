/// A JSON value — what every payload, a decoded UCI message's description, a request body and a
/// rule's attributes and cues are made of — with its object members in the order they were
/// given (a payload's schema order, a rules file's order), so that what was written is what a
/// subscriber sees. Whole numbers are `int` so that `90` stays `90`.
///
/// `JSONBytes` writes it; its `Decodable` conformance reads it strictly (a boolean is never a
/// number; through `YAMLDecoder` a quoted scalar stays text).
///
/// Not `indirect`: lists and objects nest through arrays, which already live on the heap, and an
/// indirect enum would box every scalar too (one allocation per member of every MQTT payload).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case list([JSONValue])
    case object([JSONMember])

    /// The value at `key` of an object; nil for other cases or a missing key.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The value as a number, for `int` and `double`.
    public var number: Double? {
        switch self {
        case let .int(i): Double(i)
        case let .double(d): d
        default: nil
        }
    }

    /// True for an `object`.
    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// The JSON text, as a payload carries it.
    public var json: String {
        var writer = JSONBytes(capacity: 64)
        writer.append(self)
        return String(decoding: writer.takeBytes(), as: UTF8.self)
    }
}

/// One `key: value` member of a JSON object.
public struct JSONMember: Hashable, Sendable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: Decodable {
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(try container.allKeys.map { JSONMember($0.stringValue, try container.decode(JSONValue.self, forKey: $0)) })
        } else if var container = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !container.isAtEnd { items.append(try container.decode(JSONValue.self)) }
            self = .list(items)
        } else {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null }
            else if let bool = try? container.decode(Bool.self) { self = .bool(bool) }
            else if let int = try? container.decode(Int64.self) { self = .int(int) }
            else if let double = try? container.decode(Double.self) { self = .double(double) }
            else { self = .string(try container.decode(String.self)) }
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
