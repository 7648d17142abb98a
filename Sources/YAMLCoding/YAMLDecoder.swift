import Vocabulary
import FoundationEssentials

/// Decodes `Decodable` types from YAML, with every error located as `file:line:column: message`.
///
/// ```swift
/// struct Peer: Decodable { var address: String; var name: String }
/// let peers = try YAMLDecoder().decode([Peer].self, from: "- {address: 0x0001, name: cart}\n",
///                                      file: "peers.yaml")
/// ```
///
/// Rules beyond `JSONDecoder`'s:
/// * Plain scalars follow the YAML 1.2 core schema: `yes`/`no`/`on`/`off` are text, `0x10` is 16 when an
///   integer is wanted, and quoted scalars are always text (an `Int` from `"5"` is an error).
///   A `String` can be decoded from any scalar but null: `0x0001` gives `"0x0001"`.
/// * Keys a type did not ask for are errors (`unknown key "peeers" (expected one of: address, name)`),
///   so a typo never silently changes behaviour. Dictionaries read all their keys and are unaffected.
/// * Errors thrown by a type's own `init(from:)` (including `DecodingError`s) come back as ``SourceError``
///   at the node they concern. Types that validate their input can get marks from ``Located`` or
///   ``mark(of:)`` and throw ``SourceError`` themselves.
public struct YAMLDecoder: Sendable {
    /// The cap on values produced by expanding aliases; see ``YAMLDocument/defaultMaxAliasExpansion``.
    public var maxAliasExpansion = YAMLDocument.defaultMaxAliasExpansion
    /// Handed to every `Decoder` as `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init() {}

    /// Decodes `type` from YAML text. `file` is used in error messages only.
    public func decode<T: Decodable>(_ type: T.Type, from text: String, file: String) throws -> T {
        try decode(type, from: Array(text.utf8), file: file)
    }

    /// Decodes `type` from the bytes of a YAML file (UTF-8, or UTF-16 with a byte-order mark).
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, file: String) throws -> T {
        try decode(type, from: [UInt8](data), file: file)
    }

    /// Decodes `type` from the bytes of a YAML file (UTF-8, or UTF-16 with a byte-order mark).
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], file: String) throws -> T {
        let document = try YAMLDocument(bytes: bytes, file: file, maxAliasExpansion: maxAliasExpansion)
        return try decode(type, from: document)
    }

    /// Decodes `type` from an already parsed document, then applies the unknown-key rule.
    /// - Throws: ``SourceError`` only.
    public func decode<T: Decodable>(_ type: T.Type, from document: YAMLDocument) throws -> T {
        let session = DecodingSession(document: document, userInfo: userInfo.mapValues { $0 as Any })
        let top = NodeDecoder(node: document.root, session: session, codingPath: [])
        let value = try top.decode(type, from: document.root, path: [])
        if let unknown = session.firstUnknownKey() { throw unknown }
        return value
    }

    /// The node `decoder` is decoding, or nil when `decoder` is not this module's: the whole subtree,
    /// with the marks of every key and value, for types that need more than `allKeys`.
    public static func node(of decoder: any Decoder) -> YAMLNode? {
        (decoder as? NodeDecoder)?.node
    }
}
