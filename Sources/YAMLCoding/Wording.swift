/// The words used in messages, in one place so that every message describes values the same way.
///
/// Messages are for people editing a config file: "a list", "a mapping (key: value pairs)", "a whole
/// number", never Swift type names.
enum Wording {
    static let mapping = "a mapping (key: value pairs)"
    static let list = "a list"
    static let text = "text"
    static let bool = "true or false"
    static let wholeNumber = "a whole number"
    static let number = "a number"

    /// How to name what was found at `node`, e.g. `"abc"`, `a list`, `nothing`, `an empty file`.
    static func found(_ node: YAMLNode) -> String {
        switch node.content {
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .scalar(let s):
            if node.id == -1 { return "an empty file" }
            if s.style == .plain && node.isNull { return s.text.isEmpty ? "nothing" : "null" }
            switch s.style {
            case .plain: return quote(s.text)
            case .singleQuoted, .doubleQuoted: return "the quoted text \(quote(s.text))"
            case .literal, .folded: return "a block of text"
            }
        }
    }

    /// `expected X, found Y`, with a hint when quotes are what makes a number or boolean into text.
    static func mismatch(expected: String, found node: YAMLNode) -> String {
        var message = "expected \(expected), found \(found(node))"
        if let s = node.scalar, s.style == .singleQuoted || s.style == .doubleQuoted,
           CoreSchema.resolve(YAMLScalar(text: s.text, style: .plain), tag: nil) != .string {
            message += " (quoted values are always text; remove the quotes)"
        }
        return message
    }

    /// A string in double quotes, with the characters that would make the message ambiguous escaped.
    static func quote(_ text: String) -> String {
        var out = "\""
        for c in text.unicodeScalars {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if c.value < 0x20 { out += "\\u{\(String(c.value, radix: 16))}" } else { out.unicodeScalars.append(c) }
            }
        }
        return out + "\""
    }
}
