/// A place in a source file (a YAML config or rules file): the file name as given by the caller and a
/// 1-based line and column.
///
/// Every node of a parsed document carries one, so that any problem found later — by the decoder or by a
/// caller's own validation (the rules validator's "thresholds in the wrong order") — can be reported as
/// `file:line:column: message`, the form editors and `uwb2mqtt check` understand.
public struct SourceMark: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The file name used in messages; whatever the caller passed, not necessarily a path on disk.
    public var file: String
    /// 1-based line number.
    public var line: Int
    /// 1-based column, counted in characters (Unicode scalars), as libyaml counts them.
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, the prefix of every message.
    public var description: String { "\(file):\(line):\(column)" }

    /// Document order, so that "the first problem" is the one nearest the top of the file.
    public static func < (lhs: SourceMark, rhs: SourceMark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}
