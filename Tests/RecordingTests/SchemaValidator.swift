import Foundation

/// A JSON Schema (draft-07) validator for the subset `Schemas` uses, so that the schema tests need
/// nothing but the toolchain (CI installs only Debian packages). A keyword outside the subset is a
/// failure, not silently ignored: the tests must never pass because a check was skipped.
struct SchemaValidator {
    let root: JSONValue

    static let annotations: Set<String> = ["$schema", "title", "description", "default", "examples"]
    static let supported: Set<String> = [
        "type", "properties", "required", "additionalProperties", "enum", "const", "pattern", "minimum", "maximum",
        "exclusiveMinimum", "minLength", "maxLength", "items", "minItems", "maxItems", "anyOf", "oneOf", "allOf", "$ref", "if",
        "then", "else", "dependencies", "definitions",
    ]

    /// Problems found, as `path: message`; empty when `instance` is valid.
    func validate(_ instance: JSONValue) -> [String] {
        var problems: [String] = []
        check(instance, against: root, at: "$", into: &problems)
        return problems
    }

    private func resolve(_ ref: String) -> JSONValue? {
        guard ref.hasPrefix("#/") else { return nil }
        var node: JSONValue? = root
        for part in ref.dropFirst(2).split(separator: "/") { node = node?[String(part)] }
        return node
    }

    private func check(_ value: JSONValue, against schema: JSONValue, at path: String, into problems: inout [String]) {
        guard case let .object(s) = schema else {
            if schema == .bool(false) { problems.append("\(path): not allowed") }
            return
        }
        for key in s.keys where !Self.supported.contains(key) && !Self.annotations.contains(key) {
            problems.append("\(path): schema keyword \(key) is not supported by the test validator")
        }
        if case let .string(ref)? = s["$ref"] {
            if let target = resolve(ref) { check(value, against: target, at: path, into: &problems) }
            else { problems.append("\(path): unresolvable $ref \(ref)") }
        }
        if let type = s["type"] {
            let names: [String] = if case let .array(items) = type { items.compactMap { if case let .string(n) = $0 { n } else { nil } } }
                else if case let .string(n) = type { [n] } else { [] }
            if !names.contains(where: { Self.matches(value, type: $0) }) {
                problems.append("\(path): expected \(names.joined(separator: " or ")), found \(value)")
                return
            }
        }
        if case let .array(options)? = s["enum"], !options.contains(value) {
            problems.append("\(path): \(value) is not one of \(options)")
        }
        if let constant = s["const"], constant != value { problems.append("\(path): expected \(constant), found \(value)") }
        if case let .number(n) = value {
            if case let .number(m)? = s["minimum"], n < m { problems.append("\(path): \(n) is below \(m)") }
            if case let .number(m)? = s["maximum"], n > m { problems.append("\(path): \(n) is above \(m)") }
            if case let .number(m)? = s["exclusiveMinimum"], n <= m { problems.append("\(path): \(n) must be above \(m)") }
        }
        if case let .string(text) = value {
            if case let .string(pattern)? = s["pattern"] {
                if text.range(of: pattern, options: .regularExpression) == nil {
                    problems.append("\(path): \"\(text)\" does not match \(pattern)")
                }
            }
            if case let .number(m)? = s["minLength"], Double(text.count) < m { problems.append("\(path): shorter than \(m)") }
            if case let .number(m)? = s["maxLength"], Double(text.count) > m { problems.append("\(path): longer than \(m)") }
        }
        if case let .array(items) = value {
            if case let .number(m)? = s["minItems"], Double(items.count) < m { problems.append("\(path): fewer than \(Int(m)) items") }
            if case let .number(m)? = s["maxItems"], Double(items.count) > m { problems.append("\(path): more than \(Int(m)) items") }
            if let itemSchema = s["items"] {
                for (i, item) in items.enumerated() { check(item, against: itemSchema, at: "\(path)[\(i)]", into: &problems) }
            }
        }
        if case let .object(object) = value {
            let properties: [String: JSONValue] = if case let .object(p)? = s["properties"] { p } else { [:] }
            if case let .array(required)? = s["required"] {
                for case let .string(key) in required where object[key] == nil { problems.append("\(path): missing \(key)") }
            }
            for (key, child) in object {
                if let propertySchema = properties[key] {
                    check(child, against: propertySchema, at: "\(path).\(key)", into: &problems)
                } else if let extra = s["additionalProperties"] {
                    if extra == .bool(false) { problems.append("\(path): unknown key \(key)") }
                    else { check(child, against: extra, at: "\(path).\(key)", into: &problems) }
                }
            }
            if case let .object(dependencies)? = s["dependencies"] {
                for (key, needed) in dependencies where object[key] != nil {
                    if case let .array(names) = needed {
                        for case let .string(name) in names where object[name] == nil { problems.append("\(path): \(key) needs \(name)") }
                    }
                }
            }
        }
        if case let .array(all)? = s["allOf"] {
            for sub in all { check(value, against: sub, at: path, into: &problems) }
        }
        if case let .array(any)? = s["anyOf"] {
            let results = any.map { sub -> [String] in var p: [String] = []; check(value, against: sub, at: path, into: &p); return p }
            if !results.contains(where: \.isEmpty) { problems.append("\(path): matches none of anyOf (\(results.flatMap { $0 }.joined(separator: "; ")))") }
        }
        if case let .array(one)? = s["oneOf"] {
            let passing = one.filter { sub in var p: [String] = []; check(value, against: sub, at: path, into: &p); return p.isEmpty }.count
            if passing != 1 { problems.append("\(path): matches \(passing) of oneOf, not exactly 1") }
        }
        if let condition = s["if"] {
            var p: [String] = []
            check(value, against: condition, at: path, into: &p)
            if p.isEmpty, let then = s["then"] { check(value, against: then, at: path, into: &problems) }
            if !p.isEmpty, let otherwise = s["else"] { check(value, against: otherwise, at: path, into: &problems) }
        }
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string), ("array", .array), ("object", .object): true
        case let ("integer", .number(n)): n == n.rounded() && n.isFinite
        default: false
        }
    }
}
