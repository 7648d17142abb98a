/// A decoder that knows where in a source file each value it decodes is written, and how it is
/// written — the YAML decoder does. Types that check their values after decoding them (the rules,
/// the config) ask through ``SourceLocating``, so that their messages name the line and column
/// without their knowing which format they were read from; decoded by any other decoder
/// (JSONDecoder, say), they decode the same and their messages carry no place.
public protocol SourceLocatingDecoder: Decoder {
    /// Where the value being decoded is written.
    var sourceMark: SourceMark { get }
    /// What is written there.
    var sourceShape: SourceShape { get }
}

/// How a value is written in its source.
public enum SourceShape: Sendable {
    case sequence
    /// A mapping, with each key and where it is written, in file order.
    case mapping(keys: [(key: String, mark: SourceMark)])
    /// A scalar's text; `plain` when written without quotes (only a plain scalar can be a number).
    case scalar(text: String, plain: Bool)
    /// Nothing, `null` or `~`: `text` is what was written.
    case null(text: String)
}

/// What a decoder can tell of where its value is written: nil from a decoder that cannot.
public enum SourceLocating {
    public static func mark(of decoder: any Decoder) -> SourceMark? {
        (decoder as? any SourceLocatingDecoder)?.sourceMark
    }

    public static func shape(of decoder: any Decoder) -> SourceShape? {
        (decoder as? any SourceLocatingDecoder)?.sourceShape
    }
}
