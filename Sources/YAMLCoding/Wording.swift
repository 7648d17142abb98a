import Vocabulary

/// The words used in messages, in one place so that every message describes values the same way.
///
/// Messages are for people editing a config file: "a list", "a mapping (key: value pairs)", "a whole
/// number", never Swift type names. What they quote of the file is an ``Excerpt`` (cut and
/// escaped), and nothing at all of a top level that is not a mapping: a path pointed at a key or
/// a password file gets `expected a mapping … at the top of the file, found text`, never the key.
enum Wording {
    static let mapping = "a mapping (key: value pairs)"
    static let list = "a list"
    static let text = "text"
    static let bool = "true or false"
    static let wholeNumber = "a whole number"
    static let number = "a number"

    /// How to name what was found at `node`, e.g. `"abc"`, `a list`, `nothing`, `an empty file`.
    /// `atTop`: text where the top of the file was to be a mapping or list is named, not quoted;
    /// such a file is most likely not the one meant (a key, a password), all of it that one value.
    static func found(_ node: YAMLNode, atTop: Bool = false) -> String {
        switch node.content {
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .scalar(let s):
            if node.id == -1 { return "an empty file" }
            if s.style == .plain && node.isNull { return s.text.isEmpty ? "nothing" : "null" }
            if atTop { return s.style == .literal || s.style == .folded ? "a block of text" : "text" }
            switch s.style {
            case .plain: return excerpt(s.text)
            case .singleQuoted, .doubleQuoted: return "the quoted text \(excerpt(s.text))"
            case .literal, .folded: return "a block of text"
            }
        }
    }

    /// `expected X, found Y`, with a hint when quotes are what makes a number or boolean into text.
    /// `atTop`: for a collection expected at the top of the file, the message says so and quotes
    /// nothing (see `found`).
    static func mismatch(expected: String, found node: YAMLNode, atTop: Bool = false) -> String {
        if atTop, node.scalar != nil, node.id != -1, !node.isNull {
            return "expected \(expected) at the top of the file, found \(found(node, atTop: true)) (not quoted: this may not be the file meant)"
        }
        var message = "expected \(expected), found \(found(node))"
        if let s = node.scalar, s.style == .singleQuoted || s.style == .doubleQuoted,
           CoreSchema.resolve(YAMLScalar(text: s.text, style: .plain), tag: nil) != .string {
            message += " (quoted values are always text; remove the quotes)"
        }
        return message
    }

    /// What the file holds (a value, a key), quoted as an ``Excerpt``: cut short and escaped.
    static func excerpt(_ text: String) -> String {
        Excerpt.quoted(text)
    }

    /// A name the program defines (a key it asked for), quoted and escaped whole.
    static func quote(_ text: String) -> String {
        Excerpt.quotedWhole(text)
    }
}
