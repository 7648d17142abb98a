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
    ///
    /// Judged first without writing anything out, and again in words only when something is
    /// wrong: the end-to-end tests validate every message, tens of thousands in a flood, in a
    /// debug build, and the words of the choices `oneOf` rejects would cost more than the rest.
    public func problems(_ instance: JSONValue, against schema: JSONValue) -> [String] {
        var quick = Findings(detailed: false)
        check(instance, against: schema, at: "", into: &quick)
        guard quick.count > 0 else { return [] }
        var findings = Findings(detailed: true)
        check(instance, against: schema, at: "$", into: &findings)
        return findings.messages
    }

    /// What a check found: the problems in words, or only how many.
    private struct Findings {
        let detailed: Bool
        var messages: [String] = []
        var count = 0

        mutating func add(_ path: String, _ text: @autoclosure () -> String) {
            count += 1
            if detailed { messages.append(path + ": " + text()) }
        }

        /// The path of a member or an item, written out only when problems are.
        func path(_ path: String, _ step: @autoclosure () -> String) -> String { detailed ? path + step() : path }
    }

    /// The value at a `#/a/b` reference of ``root``.
    public func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var node: JSONValue? = root
        for part in reference.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
        return node
    }

    /// A schema object's keywords, read in one pass (a payload's every member is checked against
    /// one; looking each keyword up by name would scan the object twenty times).
    private struct Keywords {
        var reference: String?
        var type: JSONValue?
        var enumeration: [JSONValue]?
        var constant: JSONValue?
        var minimum: Double?, maximum: Double?, exclusiveMinimum: Double?
        var pattern: String?
        var minLength: Double?, maxLength: Double?
        var format: String?
        var minItems: Double?, maxItems: Double?
        var items: JSONValue?
        var required: [JSONValue]?
        var properties: [JSONMember]?
        var additionalProperties: JSONValue?
        var dependencies: [JSONMember]?
        var allOf: [JSONValue]?, anyOf: [JSONValue]?, oneOf: [JSONValue]?
        var condition: JSONValue?, then: JSONValue?, otherwise: JSONValue?
        var unsupported: [String] = []

        init(_ members: [JSONMember]) {
            for member in members {
                let value = member.value
                switch member.key {
                case "$ref": if case let .string(text) = value { reference = text }
                case "type": type = value
                case "enum": if case let .list(items) = value { enumeration = items }
                case "const": constant = value
                case "minimum": minimum = value.number
                case "maximum": maximum = value.number
                case "exclusiveMinimum": exclusiveMinimum = value.number
                case "pattern": if case let .string(text) = value { pattern = text }
                case "minLength": minLength = value.number
                case "maxLength": maxLength = value.number
                case "format": if case let .string(text) = value { format = text }
                case "minItems": minItems = value.number
                case "maxItems": maxItems = value.number
                case "items": items = value
                case "required": if case let .list(names) = value { required = names }
                case "properties": if case let .object(list) = value { properties = list }
                case "additionalProperties": additionalProperties = value
                case "dependencies": if case let .object(list) = value { dependencies = list }
                case "allOf": if case let .list(list) = value { allOf = list }
                case "anyOf": if case let .list(list) = value { anyOf = list }
                case "oneOf": if case let .list(list) = value { oneOf = list }
                case "if": condition = value
                case "then": then = value
                case "else": otherwise = value
                default: if !JSONSchemaValidator.annotations.contains(member.key) { unsupported.append(member.key) }
                }
            }
        }
    }

    private func check(_ value: JSONValue, against schema: JSONValue, at path: String, into problems: inout Findings) {
        guard case let .object(members) = schema else {
            if schema == .bool(false) { problems.add(path, "not allowed") }
            return
        }
        let s = Keywords(members)
        for keyword in s.unsupported { problems.add(path, "the test validator does not support the keyword \(keyword)") }
        if let reference = s.reference {
            if let target = resolve(reference) { check(value, against: target, at: path, into: &problems) }
            else { problems.add(path, "unresolvable $ref \(reference)") }
        }
        if let type = s.type {
            let names: [String] = switch type {
            case let .list(items): items.compactMap { if case let .string(name) = $0 { name } else { nil } }
            case let .string(name): [name]
            default: []
            }
            guard names.contains(where: { Self.matches(value, type: $0) }) else {
                return problems.add(path, "expected \(names.joined(separator: " or ")), found \(value.json)")
            }
        }
        if let options = s.enumeration, !options.contains(where: { Self.equal($0, value) }) {
            problems.add(path, "\(value.json) is not one of \(JSONValue.list(options).json)")
        }
        if let constant = s.constant, !Self.equal(constant, value) { problems.add(path, "expected \(constant.json), found \(value.json)") }
        if let n = value.number {
            if let m = s.minimum, n < m { problems.add(path, "\(value.json) is below \(m)") }
            if let m = s.maximum, n > m { problems.add(path, "\(value.json) is above \(m)") }
            if let m = s.exclusiveMinimum, n <= m { problems.add(path, "\(value.json) must be above \(m)") }
        }
        if case let .string(text) = value {
            if let pattern = s.pattern, text.range(of: pattern, options: .regularExpression) == nil {
                problems.add(path, "\(value.json) does not match \(pattern)")
            }
            if let m = s.minLength, Double(text.count) < m { problems.add(path, "shorter than \(Int(m))") }
            if let m = s.maxLength, Double(text.count) > m { problems.add(path, "longer than \(Int(m))") }
            if s.format == "date-time", Timestamp.parse(text) == nil { problems.add(path, "\(value.json) is not an RFC 3339 UTC time") }
        }
        if case let .list(items) = value {
            if let m = s.minItems, Double(items.count) < m { problems.add(path, "fewer than \(Int(m)) items") }
            if let m = s.maxItems, Double(items.count) > m { problems.add(path, "more than \(Int(m)) items") }
            if let itemSchema = s.items {
                for (i, item) in items.enumerated() { check(item, against: itemSchema, at: problems.path(path, "[\(i)]"), into: &problems) }
            }
        }
        if case let .object(object) = value {
            for case let .string(key) in s.required ?? [] where !object.contains(where: { $0.key == key }) {
                problems.add(path, "missing \(key)")
            }
            for member in object {
                if let propertySchema = s.properties?.first(where: { $0.key == member.key })?.value {
                    check(member.value, against: propertySchema, at: problems.path(path, ".\(member.key)"), into: &problems)
                } else if let extra = s.additionalProperties {
                    if extra == .bool(false) { problems.add(path, "undeclared key \(member.key)") }
                    else { check(member.value, against: extra, at: problems.path(path, ".\(member.key)"), into: &problems) }
                }
            }
            for dependency in s.dependencies ?? [] where object.contains(where: { $0.key == dependency.key }) {
                guard case let .list(needed) = dependency.value else { continue }
                for case let .string(name) in needed where !object.contains(where: { $0.key == name }) {
                    problems.add(path, "\(dependency.key) needs \(name)")
                }
            }
        }
        for sub in s.allOf ?? [] { check(value, against: sub, at: path, into: &problems) }
        if let any = s.anyOf {
            let results = any.map { findings(value, against: $0, at: path, detailed: problems.detailed) }
            if !results.contains(where: { $0.count == 0 }) {
                problems.add(path, "matches none of anyOf (\(results.flatMap(\.messages).joined(separator: "; ")))")
            }
        }
        if let one = s.oneOf {
            let results = one.map { findings(value, against: $0, at: path, detailed: problems.detailed) }
            let passing = results.filter { $0.count == 0 }.count
            if passing == 0 {
                problems.add(path, "matches none of oneOf (\(results.map { $0.messages.joined(separator: "; ") }.joined(separator: " | ")))")
            } else if passing > 1 {
                problems.add(path, "matches \(passing) of oneOf, not exactly 1")
            }
        }
        if let condition = s.condition {
            let holds = findings(value, against: condition, at: path, detailed: false).count == 0
            if let branch = holds ? s.then : s.otherwise { check(value, against: branch, at: path, into: &problems) }
        }
    }

    private func findings(_ value: JSONValue, against schema: JSONValue, at path: String, detailed: Bool) -> Findings {
        var found = Findings(detailed: detailed)
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
