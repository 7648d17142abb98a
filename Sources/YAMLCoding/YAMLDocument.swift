import Vocabulary

/// A parsed YAML file: exactly one document, as a tree of ``YAMLNode``s.
///
/// Parsing and decoding are separate so that tools can inspect the tree (a scenario player that walks
/// the nodes itself, a validator that wants key marks) while ``YAMLDecoder`` covers the common case.
public struct YAMLDocument: Sendable {
    /// The default cap on nodes produced by expanding aliases. A real config file expands a handful;
    /// a "billion laughs" file expands billions, and would otherwise make decoding run forever.
    public static let defaultMaxAliasExpansion = 100_000

    /// The file name used in every mark and error.
    public let file: String
    /// The document's root. For an empty file (nothing, or only comments) this is a plain empty
    /// scalar, which is null, at line 1 column 1; ``isEmpty`` tells the two apart.
    public let root: YAMLNode
    /// True when the file holds no document at all (empty, or only comments and whitespace).
    public let isEmpty: Bool

    /// Parses UTF-8 (or UTF-16 with a BOM, as libyaml detects) bytes.
    /// - Throws: ``SourceError`` for syntax errors (with libyaml's line, column and problem), a second
    ///   document, an unknown or recursive alias, a list or mapping used as a key, a duplicate key, or
    ///   more than `maxAliasExpansion` nodes reached through aliases.
    public init(bytes: [UInt8], file: String, maxAliasExpansion: Int = YAMLDocument.defaultMaxAliasExpansion) throws {
        let parsed = try YAMLParser.parse(bytes: bytes, file: file, maxAliasExpansion: maxAliasExpansion)
        self.file = file
        self.isEmpty = parsed == nil
        self.root = parsed ?? YAMLNode(
            content: .scalar(YAMLScalar(text: "", style: .plain)),
            mark: SourceMark(file: file, line: 1, column: 1), tag: nil, id: -1)
    }

    /// Parses text. See ``init(bytes:file:maxAliasExpansion:)``.
    public init(text: String, file: String, maxAliasExpansion: Int = YAMLDocument.defaultMaxAliasExpansion) throws {
        try self.init(bytes: Array(text.utf8), file: file, maxAliasExpansion: maxAliasExpansion)
    }
}
