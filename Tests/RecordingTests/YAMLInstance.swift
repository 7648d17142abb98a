import Foundation
import Vocabulary
import YAMLCoding

/// A YAML file as the JSON a YAML 1.2 language server validates against a schema (core schema):
/// plain scalars are null, booleans, integers (decimal, 0x, 0o) or floats; quoted scalars are
/// strings.
enum YAMLInstance {
    static func parse(_ text: String) throws -> JSONValue {
        let document = try YAMLDocument(text: text, file: "test.yaml")
        return document.isEmpty ? .null : convert(document.root)
    }

    private static func convert(_ node: YAMLNode) -> JSONValue {
        switch node.content {
        case let .sequence(items): return .list(items.map(convert))
        case let .mapping(entries): return .object(entries.map { JSONMember($0.key, convert($0.value)) })
        case let .scalar(scalar):
            guard scalar.style == .plain else { return .string(scalar.text) }
            let t = scalar.text
            if ["", "~", "null", "Null", "NULL"].contains(t) { return .null }
            if ["true", "True", "TRUE"].contains(t) { return .bool(true) }
            if ["false", "False", "FALSE"].contains(t) { return .bool(false) }
            if t.range(of: #"^[-+]?[0-9]+$"#, options: .regularExpression) != nil, let v = Int64(t) { return .int(v) }
            if t.hasPrefix("0x"), let v = Int64(t.dropFirst(2), radix: 16) { return .int(v) }
            if t.hasPrefix("0o"), let v = Int64(t.dropFirst(2), radix: 8) { return .int(v) }
            if t.range(of: #"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"#, options: .regularExpression) != nil, let v = Double(t) {
                return .double(v)
            }
            return .string(t)
        }
    }
}
