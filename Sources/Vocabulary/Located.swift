/// A decoded value together with where it was written: the declarative way to keep marks for checks
/// that run after decoding.
///
/// The rules validator, for instance, decodes `exit_beyond: Located<Double>` and, when it is below
/// `enter_within`, throws `SourceError(at: exitBeyond.mark, "…")`, which reads as
/// `rules.yaml:12:18: …` like every other problem in the file. `Located<T>?` is absent or null exactly
/// when `T?` would be.
///
/// Decoded by a decoder that does not know where values are written (JSONDecoder, say; see
/// ``SourceLocatingDecoder``), the value decodes normally and the mark is ``unknownMark``, because
/// there is no file position to report.
public struct Located<Value> {
    public var value: Value
    public var mark: SourceMark

    public init(_ value: Value, at mark: SourceMark) {
        self.value = value
        self.mark = mark
    }

    /// The mark given to values decoded by a decoder that does not locate them.
    public static var unknownMark: SourceMark { SourceMark(file: "<unknown>", line: 0, column: 0) }
}

extension Located: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        mark = SourceLocating.mark(of: decoder) ?? Self.unknownMark
        // Through the single-value container, so the value gets the same rules and messages as unwrapped.
        value = try decoder.singleValueContainer().decode(Value.self)
    }
}

extension Located: Sendable where Value: Sendable {}
extension Located: Equatable where Value: Equatable {}
extension Located: Hashable where Value: Hashable {}
