import Vocabulary

/// The keyed container over a mapping. Keys are looked up by their text; `allKeys` keeps file order.
///
/// Every lookup tells the ``DecodingSession`` which key was asked for and which was read, which is what
/// the unknown-key check and its "expected one of" list are built from.
struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeDecoder
    let entries: [YAMLMappingEntry]
    /// Entry index by key, so that a large mapping read as a dictionary is not quadratic.
    /// Keys are unique: the parser rejects duplicates.
    private let index: [String: Int]

    init(decoder: NodeDecoder, entries: [YAMLMappingEntry]) {
        self.decoder = decoder
        self.entries = entries
        var index = [String: Int](minimumCapacity: entries.count)
        for (i, entry) in entries.enumerated() where index[entry.key] == nil { index[entry.key] = i }
        self.index = index
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    private var mapping: YAMLNode { decoder.node }

    var allKeys: [Key] { entries.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool {
        decoder.session.asked(key.stringValue, of: mapping)
        return index[key.stringValue] != nil
    }

    /// The value for `key`, marking it read; a missing key is an error at the mapping that lacks it.
    private func value(for key: Key) throws -> YAMLNode {
        decoder.session.didRead(key.stringValue, of: mapping)
        guard let i = index[key.stringValue] else {
            throw SourceError(at: mapping.mark, "missing key \(Wording.quote(key.stringValue))", kind: .missingKey)
        }
        return entries[i].value
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool { try value(for: key).isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(value(for: key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.string(value(for: key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.double(value(for: key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.float(value(for: key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.integer(value(for: key), as: type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.integer(value(for: key), as: type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.integer(value(for: key), as: type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.integer(value(for: key), as: type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.integer(value(for: key), as: type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.integer(value(for: key), as: type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.integer(value(for: key), as: type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.integer(value(for: key), as: type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.integer(value(for: key), as: type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.integer(value(for: key), as: type) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decoder.integer(value(for: key), as: type) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decoder.integer(value(for: key), as: type) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, from: value(for: key), path: path(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        try NodeDecoder(node: value(for: key), session: decoder.session, codingPath: path(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try NodeDecoder(node: value(for: key), session: decoder.session, codingPath: path(key)).unkeyedContainer()
    }

    /// The decoder for the value under `super`, or for a null at the mapping when there is none
    /// (JSONDecoder's behaviour, so types written for it work unchanged).
    func superDecoder() throws -> any Decoder {
        try superDecoder(named: YAMLKey.super.stringValue, key: YAMLKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder(named: key.stringValue, key: key)
    }

    private func superDecoder(named name: String, key: any CodingKey) throws -> any Decoder {
        decoder.session.didRead(name, of: mapping)
        let node = index[name].map { entries[$0].value }
            ?? YAMLNode(content: .scalar(YAMLScalar(text: "", style: .plain)), mark: mapping.mark, tag: nil, id: -2)
        return NodeDecoder(node: node, session: decoder.session, codingPath: codingPath + [key])
    }
}
