import Vocabulary
import FoundationEssentials

/// The `Decoder` for one node of the tree.
///
/// Every value decoded gets its own `NodeDecoder`; the containers it hands out create more for their
/// children. The conversions from scalars to Swift values live here, so the three container kinds share
/// one set of rules and one set of messages.
final class NodeDecoder: SourceLocatingDecoder {
    let node: YAMLNode
    let session: DecodingSession
    let codingPath: [any CodingKey]

    init(node: YAMLNode, session: DecodingSession, codingPath: [any CodingKey]) {
        self.node = node
        self.session = session
        self.codingPath = codingPath
    }

    var userInfo: [CodingUserInfoKey: Any] { session.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .mapping(let entries) = node.content else {
            throw SourceError(at: node.mark, collectionMismatch(expected: Wording.mapping), kind: .typeMismatch)
        }
        session.openedKeyedContainer(on: node)
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, entries: entries))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .sequence(let items) = node.content else {
            throw SourceError(at: node.mark, collectionMismatch(expected: Wording.list), kind: .typeMismatch)
        }
        return UnkeyedContainer(decoder: self, items: items)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }

    // MARK: - Conversions shared by the containers

    /// Decodes any `Decodable` from a child node, turning errors a type throws itself into located ones.
    func decode<T: Decodable>(_ type: T.Type, from child: YAMLNode, path: [any CodingKey]) throws -> T {
        // Foundation's Decimal decodes itself as a keyed structure; in a text file it is a number.
        if type == Decimal.self, let value = try decimal(child) as? T {
            return value
        }
        let decoder = NodeDecoder(node: child, session: session, codingPath: path)
        do {
            return try T(from: decoder)
        } catch {
            throw session.locate(error, decoding: T.self, at: child)
        }
    }

    /// The scalar of `node` with what the core schema makes of it, or a type error naming `expected`.
    private func scalar(_ node: YAMLNode, expected: String) throws -> (YAMLScalar, CoreSchema.Resolved) {
        guard let s = node.scalar else {
            throw SourceError(at: node.mark, Wording.mismatch(expected: expected, found: node), kind: .typeMismatch)
        }
        return (s, CoreSchema.resolve(s, tag: node.tag))
    }

    /// `expected X, found Y` for a mapping or list this node is not; at the top of the file,
    /// where text is most likely a file that was never meant for this (a key, a password), it
    /// quotes nothing.
    private func collectionMismatch(expected: String) -> String {
        Wording.mismatch(expected: expected, found: node, atTop: session.isTop(node))
    }

    func isNull(_ node: YAMLNode) -> Bool { node.isNull }

    func bool(_ node: YAMLNode) throws -> Bool {
        let (_, resolved) = try scalar(node, expected: Wording.bool)
        guard case .bool(let b) = resolved else {
            throw SourceError(at: node.mark, Wording.mismatch(expected: Wording.bool, found: node), kind: .typeMismatch)
        }
        return b
    }

    /// Any scalar but a plain null is text: `42`, `0x0001` and `true` decode as the characters written.
    func string(_ node: YAMLNode) throws -> String {
        let (s, resolved) = try scalar(node, expected: Wording.text)
        if resolved == .null {
            throw SourceError(at: node.mark, Wording.mismatch(expected: Wording.text, found: node), kind: .typeMismatch)
        }
        return s.text
    }

    func integer<T: FixedWidthInteger>(_ node: YAMLNode, as type: T.Type) throws -> T {
        let (s, resolved) = try scalar(node, expected: Wording.wholeNumber)
        guard resolved == .int else {
            throw SourceError(at: node.mark, Wording.mismatch(expected: Wording.wholeNumber, found: node), kind: .typeMismatch)
        }
        switch CoreSchema.integer(s.text, as: T.self) {
        case .value(let v):
            return v
        case .outOfRange:
            throw SourceError(at: node.mark, "expected a whole number from \(T.min) to \(T.max), found \(Wording.found(node))",
                            kind: .typeMismatch)
        case .notAnInteger:
            throw SourceError(at: node.mark, Wording.mismatch(expected: Wording.wholeNumber, found: node), kind: .typeMismatch)
        }
    }

    func double(_ node: YAMLNode) throws -> Double {
        let (s, resolved) = try scalar(node, expected: Wording.number)
        guard resolved == .int || resolved == .float, let value = CoreSchema.double(s.text) else {
            throw SourceError(at: node.mark, Wording.mismatch(expected: Wording.number, found: node), kind: .typeMismatch)
        }
        guard value.isFinite || value.isNaN || s.text.contains("inf") || s.text.contains("Inf") || s.text.contains("INF") else {
            throw SourceError(at: node.mark, "the number \(Wording.found(node)) is too large", kind: .typeMismatch)
        }
        return value
    }

    func float(_ node: YAMLNode) throws -> Float {
        let value = try double(node)
        let narrowed = Float(value)
        if narrowed.isInfinite && value.isFinite {
            throw SourceError(at: node.mark, "the number \(Wording.found(node)) is too large", kind: .typeMismatch)
        }
        return narrowed
    }

    private func decimal(_ node: YAMLNode) throws -> Decimal {
        let (s, resolved) = try scalar(node, expected: Wording.number)
        if resolved == .int, case .value(let v) = CoreSchema.integer(s.text, as: Int64.self) {
            return Decimal(v)
        }
        guard resolved == .float, let value = Decimal(string: s.text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw SourceError(at: node.mark, Wording.mismatch(expected: Wording.number, found: node), kind: .typeMismatch)
        }
        return value
    }
}

extension NodeDecoder {
    var sourceMark: SourceMark { node.mark }

    var sourceShape: SourceShape {
        switch node.content {
        case .sequence: .sequence
        case let .mapping(entries): .mapping(keys: entries.map { ($0.key, $0.keyMark) })
        case let .scalar(scalar): node.isNull ? .null(text: scalar.text) : .scalar(text: scalar.text, plain: scalar.style == .plain)
        }
    }
}
