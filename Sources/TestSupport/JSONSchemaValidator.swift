import Foundation
import Vocabulary

/// A JSON Schema (draft-07) validator for the subset the AsyncAPI document (`uwb2mqtt schema api`)
/// and the editor schemas (`schema config|rules`) use, so that the tests need nothing but the
/// toolchain (CI installs only Debian packages). A keyword outside the subset is a problem, never
/// silently ignored: a payload or a file must not pass because a check was skipped.
public struct JSONSchemaValidator: Sendable {
    /// The document `$ref`s resolve in (`#/components/schemas/…`).
    public let root: JSONValue

    public init(root: JSONValue) { self.root = root }

    /// Keywords that say what a value means and check nothing.
    public static let annotations: Set<String> = ["$schema", "title", "description", "default", "examples", "contentEncoding", "definitions"]
    /// Keywords it checks; any other is a problem.
    public static let supported: Set<String> = [
        "type", "properties", "required", "additionalProperties", "enum", "const", "pattern", "minimum", "maximum", "exclusiveMinimum",
        "minLength", "maxLength", "items", "minItems", "maxItems", "anyOf", "oneOf", "allOf", "$ref", "format", "if", "then", "else",
        "dependencies",
    ]

    /// Problems found, as `path: message`; empty when `instance` is valid against `schema`.
    public func problems(_ instance: JSONValue, against schema: JSONValue) -> [String] {
        var problems: [String] = []
        check(instance, against: schema, at: "$", into: &problems)
        return problems
    }

    /// The value at a `#/a/b` reference of ``root``.
    public func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: JSONValue? = root
        for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
        return node
    }

    private func check(_ value: JSONValue, against schema: JSONValue, at path: String, into problems: inout [String]) {
        guard case let .object(keywords) = schema else {
            if schema == .bool(false) { problems.append("\(path): not allowed") }
            return
        }
        for keyword in keywords where !Self.supported.contains(keyword.key) && !Self.annotations.contains(keyword.key) {
            problems.append("\(path): the test validator does not support the keyword \(keyword.key)")
        }
        if case let .string(reference)? = schema["$ref"] {
            if let target = resolve(reference) { check(value, against: target, at: path, into: &problems) }
            else { problems.append("\(path): unresolvable $ref \(reference)") }
        }
        if let type = schema["type"] {
            let names: [String] = switch type {
            case let .list(items): items.compactMap { if case let .string(name) = $0 { name } else { nil } }
            case let .string(name): [name]
            default: []
            }
            guard names.contains(where: { Self.matches(value, type: $0) }) else {
                return problems.append("\(path): expected \(names.joined(separator: " or ")), found \(value.json)")
            }
        }
        if case let .list(options)? = schema["enum"], !options.contains(where: { Self.equal($0, value) }) {
            problems.append("\(path): \(value.json) is not one of \(JSONValue.list(options).json)")
        }
        if let constant = schema["const"], !Self.equal(constant, value) { problems.append("\(path): expected \(constant.json), found \(value.json)") }
        if let n = value.number {
            if let m = schema["minimum"]?.number, n < m { problems.append("\(path): \(value.json) is below \(m)") }
            if let m = schema["maximum"]?.number, n > m { problems.append("\(path): \(value.json) is above \(m)") }
            if let m = schema["exclusiveMinimum"]?.number, n <= m { problems.append("\(path): \(value.json) must be above \(m)") }
        }
        if case let .string(text) = value {
            if case let .string(pattern)? = schema["pattern"], text.range(of: pattern, options: .regularExpression) == nil {
                problems.append("\(path): \(value.json) does not match \(pattern)")
            }
            if let m = schema["minLength"]?.number, Double(text.count) < m { problems.append("\(path): shorter than \(Int(m))") }
            if let m = schema["maxLength"]?.number, Double(text.count) > m { problems.append("\(path): longer than \(Int(m))") }
            if schema["format"] == .string("date-time"), Timestamp.parse(text) == nil {
                problems.append("\(path): \(value.json) is not an RFC 3339 UTC time")
            }
        }
        if case let .list(items) = value {
            if let m = schema["minItems"]?.number, Double(items.count) < m { problems.append("\(path): fewer than \(Int(m)) items") }
            if let m = schema["maxItems"]?.number, Double(items.count) > m { problems.append("\(path): more than \(Int(m)) items") }
            if let itemSchema = schema["items"] {
                for (i, item) in items.enumerated() { check(item, against: itemSchema, at: "\(path)[\(i)]", into: &problems) }
            }
        }
        if case let .object(members) = value {
            if case let .list(required)? = schema["required"] {
                for case let .string(key) in required where !members.contains(where: { $0.key == key }) {
                    problems.append("\(path): missing \(key)")
                }
            }
            for member in members {
                if let propertySchema = schema["properties"]?[member.key] {
                    check(member.value, against: propertySchema, at: "\(path).\(member.key)", into: &problems)
                } else if let extra = schema["additionalProperties"] {
                    if extra == .bool(false) { problems.append("\(path): undeclared key \(member.key)") }
                    else { check(member.value, against: extra, at: "\(path).\(member.key)", into: &problems) }
                }
            }
            if case let .object(dependencies)? = schema["dependencies"] {
                for dependency in dependencies where members.contains(where: { $0.key == dependency.key }) {
                    guard case let .list(needed) = dependency.value else { continue }
                    for case let .string(name) in needed where !members.contains(where: { $0.key == name }) {
                        problems.append("\(path): \(dependency.key) needs \(name)")
                    }
                }
            }
        }
        if case let .list(all)? = schema["allOf"] {
            for sub in all { check(value, against: sub, at: path, into: &problems) }
        }
        if case let .list(any)? = schema["anyOf"] {
            let results = any.map { findings(value, against: $0, at: path) }
            if !results.contains(where: \.isEmpty) {
                problems.append("\(path): matches none of anyOf (\(results.flatMap { $0 }.joined(separator: "; ")))")
            }
        }
        if case let .list(one)? = schema["oneOf"] {
            let results = one.map { findings(value, against: $0, at: path) }
            let passing = results.filter(\.isEmpty).count
            if passing == 0 {
                problems.append("\(path): matches none of oneOf (\(results.map { $0.joined(separator: "; ") }.joined(separator: " | ")))")
            } else if passing > 1 {
                problems.append("\(path): matches \(passing) of oneOf, not exactly 1")
            }
        }
        conditional(value, schema, at: path, into: &problems)
    }

    private func conditional(_ value: JSONValue, _ schema: JSONValue, at path: String, into problems: inout [String]) {
        guard let condition = schema["if"] else { return }
        let holds = findings(value, against: condition, at: path).isEmpty
        if let branch = holds ? schema["then"] : schema["else"] { check(value, against: branch, at: path, into: &problems) }
    }

    private func findings(_ value: JSONValue, against schema: JSONValue, at path: String) -> [String] {
        var found: [String] = []
        check(value, against: schema, at: path, into: &found)
        return found
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("number", .int), ("number", .double), ("string", .string), ("array", .list),
             ("object", .object), ("integer", .int): true
        case let ("integer", .double(n)): n == n.rounded() && n.isFinite
        default: false
        }
    }

    /// JSON equality: `1` and `1.0` are the same number.
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.number, let y = b.number { return x == y }
        return a == b
    }
}
