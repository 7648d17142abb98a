import Foundation
import YAMLCoding

/// A JSON value for the schema tests: schemas come from JSON text, instances from YAML files
/// resolved the way a YAML 1.2 language server resolves them (core schema).
indirect enum JSONValue: Equatable, Decodable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    static func parse(json text: String) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// A YAML document as JSON: plain scalars are null, booleans, integers (decimal, 0x, 0o) or
    /// floats under the YAML 1.2 core schema; quoted scalars are strings.
    static func parse(yaml text: String) throws -> JSONValue {
        let document = try YAMLDocument(text: text, file: "test.yaml")
        return document.isEmpty ? .null : convert(document.root)
    }

    private static func convert(_ node: YAMLNode) -> JSONValue {
        switch node.content {
        case let .sequence(items): return .array(items.map(convert))
        case let .mapping(entries):
            var object: [String: JSONValue] = [:]
            for entry in entries { object[entry.key] = convert(entry.value) }
            return .object(object)
        case let .scalar(scalar):
            guard scalar.style == .plain else { return .string(scalar.text) }
            let t = scalar.text
            if ["", "~", "null", "Null", "NULL"].contains(t) { return .null }
            if ["true", "True", "TRUE"].contains(t) { return .bool(true) }
            if ["false", "False", "FALSE"].contains(t) { return .bool(false) }
            if t.range(of: #"^[-+]?[0-9]+$"#, options: .regularExpression) != nil, let v = Double(t) { return .number(v) }
            if t.hasPrefix("0x"), let v = Int(t.dropFirst(2), radix: 16) { return .number(Double(v)) }
            if t.hasPrefix("0o"), let v = Int(t.dropFirst(2), radix: 8) { return .number(Double(v)) }
            if t.range(of: #"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"#, options: .regularExpression) != nil, let v = Double(t) { return .number(v) }
            return .string(t)
        }
    }

    subscript(key: String) -> JSONValue? {
        if case let .object(o) = self { return o[key] }
        return nil
    }

    var description: String {
        switch self {
        case .null: "null"
        case let .bool(b): "\(b)"
        case let .number(n): "\(n)"
        case let .string(s): "\"\(s)\""
        case let .array(a): "[\(a.map(\.description).joined(separator: ", "))]"
        case let .object(o): "{\(o.keys.sorted().map { "\($0): \(o[$0]!)" }.joined(separator: ", "))}"
        }
    }
}
