import Vocabulary
import UCI

/// Renders the codec's `JSONMember` lists as one-line JSON (keys in the codec's order) or as
/// indented text for people.
public enum FieldRendering {
    public static func json(_ fields: [JSONMember]) -> String {
        String(decoding: jsonBytes(fields), as: UTF8.self)
    }

    public static func json(_ value: JSONValue) -> String {
        var writer = JSONBytes(capacity: 64)
        writer.append(value)
        return String(decoding: writer.takeBytes(), as: UTF8.self)
    }

    /// The same JSON as ``json(_:)-([JSONMember])``, as the bytes an MQTT payload carries.
    public static func jsonBytes(_ fields: [JSONMember]) -> [UInt8] { JSONBytes.object(fields) }

    /// `key: value` lines, nested lists as `- ` items, indented by two spaces a level.
    public static func text(_ fields: [JSONMember], indent: Int = 0) -> String {
        var lines: [String] = []
        appendText(fields, indent: indent, firstPrefix: nil, to: &lines)
        return lines.joined(separator: "\n")
    }

    private static func appendText(_ fields: [JSONMember], indent: Int, firstPrefix: String?, to lines: inout [String]) {
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

    private static func scalarText(_ value: JSONValue) -> String {
        switch value {
        case let .string(s): s
        case .list(let items): "[" + items.map(scalarText).joined(separator: ", ") + "]"
        case .null: "null"
        default: json(value)
        }
    }
}
