import Vocabulary

/// The text of a scalar as written, with how it was written.
///
/// The style matters for typing: under the YAML 1.2 core schema only a *plain* scalar can be a number,
/// a boolean or null. `"5"` is text, so decoding an `Int` from it is an error rather than a guess.
public struct YAMLScalar: Sendable, Hashable {
    /// How the scalar was written in the file.
    public enum Style: Sendable, Hashable {
        case plain
        case singleQuoted
        case doubleQuoted
        /// A `|` block scalar.
        case literal
        /// A `>` block scalar.
        case folded
    }

    /// The scalar's value after YAML's unescaping and folding.
    public var text: String
    public var style: Style

    public init(text: String, style: Style) {
        self.text = text
        self.style = style
    }

    /// True for every style but plain: such a scalar is always text.
    public var isQuoted: Bool { style != .plain }
}
