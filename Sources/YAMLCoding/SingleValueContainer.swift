import Vocabulary

/// The single-value container: the node itself, for scalars and for types that wrap another value.
struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: NodeDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }
    private var node: YAMLNode { decoder.node }

    func decodeNil() -> Bool { node.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool(node) }
    func decode(_ type: String.Type) throws -> String { try decoder.string(node) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.double(node) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.float(node) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(node, as: type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(node, as: type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(node, as: type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(node, as: type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(node, as: type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(node, as: type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(node, as: type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(node, as: type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(node, as: type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(node, as: type) }
    func decode(_ type: Int128.Type) throws -> Int128 { try decoder.integer(node, as: type) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try decoder.integer(node, as: type) }

    /// Decodes a wrapper's inner value from the same node (the coding path does not grow).
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decode(type, from: node, path: codingPath)
    }
}
