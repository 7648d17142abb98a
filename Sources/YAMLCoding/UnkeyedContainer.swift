import Vocabulary

/// The unkeyed container over a sequence: items in file order, each decoded once.
struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: NodeDecoder
    let items: [YAMLNode]
    private(set) var currentIndex = 0

    init(decoder: NodeDecoder, items: [YAMLNode]) {
        self.decoder = decoder
        self.items = items
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    /// The next item, advancing past it; running off the end is an error at the list itself.
    private mutating func next() throws -> (YAMLNode, [any CodingKey]) {
        guard !isAtEnd else {
            let n = items.count
            throw SourceError(at: decoder.node.mark,
                            "expected at least \(n + 1) item\(n + 1 == 1 ? "" : "s") in this list, found \(n)",
                            kind: .missingItem)
        }
        defer { currentIndex += 1 }
        return (items[currentIndex], codingPath + [YAMLKey(intValue: currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { _ = try next(); return false }
        if items[currentIndex].isNull {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(next().0) }
    mutating func decode(_ type: String.Type) throws -> String { try decoder.string(next().0) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decoder.double(next().0) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decoder.float(next().0) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decoder.integer(next().0, as: type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(next().0, as: type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(next().0, as: type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(next().0, as: type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(next().0, as: type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(next().0, as: type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(next().0, as: type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(next().0, as: type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(next().0, as: type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(next().0, as: type) }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try decoder.integer(next().0, as: type) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try decoder.integer(next().0, as: type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (node, path) = try next()
        return try decoder.decode(type, from: node, path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey> {
        let (node, path) = try next()
        return try NodeDecoder(node: node, session: decoder.session, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (node, path) = try next()
        return try NodeDecoder(node: node, session: decoder.session, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (node, path) = try next()
        return NodeDecoder(node: node, session: decoder.session, codingPath: path)
    }
}
