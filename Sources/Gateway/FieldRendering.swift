import UCI

/// Renders the codec's `Field` lists as one-line JSON (keys in the codec's order) or as
/// indented text for people.
public enum FieldRendering {
    public static func json(_ fields: [Field]) -> String {
        var out = ""
        appendObject(fields, to: &out)
        return out
    }

    public static func json(_ value: FieldValue) -> String {
        var out = ""
        append(value, to: &out)
        return out
    }

    private static func appendObject(_ fields: [Field], to out: inout String) {
        out += "{"
        for (index, field) in fields.enumerated() {
            if index > 0 { out += ", " }
            appendString(field.key, to: &out)
            out += ": "
            append(field.value, to: &out)
        }
        out += "}"
    }

    private static func append(_ value: FieldValue, to out: inout String) {
        switch value {
        case let .int(v): out += String(v)
        case let .double(v): out += v.isFinite ? String(v) : "null"
        case let .string(s): appendString(s, to: &out)
        case let .bool(b): out += b ? "true" : "false"
        case .null: out += "null"
        case let .list(items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += ", " }
                append(item, to: &out)
            }
            out += "]"
        case let .object(fields): appendObject(fields, to: &out)
        }
    }

    /// JSON string with the escapes RFC 8259 requires.
    static func appendString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// `key: value` lines, nested lists as `- ` items, indented by two spaces a level.
    public static func text(_ fields: [Field], indent: Int = 0) -> String {
        var lines: [String] = []
        appendText(fields, indent: indent, firstPrefix: nil, to: &lines)
        return lines.joined(separator: "\n")
    }

    private static func appendText(_ fields: [Field], indent: Int, firstPrefix: String?, to lines: inout [String]) {
        let pad = String(repeating: " ", count: indent)
        for (index, field) in fields.enumerated() {
            let lead = index == 0 && firstPrefix != nil ? String(pad.dropLast(2)) + firstPrefix! : pad
            switch field.value {
            case let .list(items) where items.contains(where: { if case .object = $0 { true } else { false } }):
                lines.append("\(lead)\(field.key):" + (items.isEmpty ? " []" : ""))
                for item in items {
                    if case let .object(inner) = item {
                        appendText(inner, indent: indent + 4, firstPrefix: "- ", to: &lines)
                    } else {
                        lines.append(pad + "  - " + scalarText(item))
                    }
                }
            case let .object(inner):
                lines.append("\(lead)\(field.key):")
                appendText(inner, indent: indent + 2, firstPrefix: nil, to: &lines)
            default:
                lines.append("\(lead)\(field.key): \(scalarText(field.value))")
            }
        }
    }

    private static func scalarText(_ value: FieldValue) -> String {
        switch value {
        case let .string(s): s
        case .list(let items): "[" + items.map(scalarText).joined(separator: ", ") + "]"
        case .null: "null"
        default: json(value)
        }
    }
}
