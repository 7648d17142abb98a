/// Helpers that make scenario files strict and forgiving in the right places.
///
/// Strict: an unknown key is an error, because a misspelt `dropout_probabilty` that silently
/// does nothing wastes an afternoon. Forgiving: a peer address may be written `0x0001` (as the
/// rules and config files write it), as a string, or as a plain number, whichever the YAML
/// decoder hands over.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

extension Decoder {
    /// Throws `DecodingError.dataCorrupted` naming the first key not in `Keys`.
    func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type) throws {
        let container = try self.container(keyedBy: AnyCodingKey.self)
        let allowed = Set(Keys.allCases.map(\.stringValue))
        for key in container.allKeys where !allowed.contains(key.stringValue) {
            let expected = Keys.allCases.map(\.stringValue).joined(separator: ", ")
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: codingPath + [key],
                debugDescription: "unknown key '\(key.stringValue)' (expected one of: \(expected))"))
        }
    }
}

/// `peers[0].path[2]`: a coding path as the scenario file's author would point at it.
func codingPathText(_ path: [any CodingKey]) -> String {
    var text = ""
    for key in path {
        if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
    }
    return text.isEmpty ? "scenario" : text
}

/// A 16-bit short MAC address from `0x0001`, `"1"` or `1`.
enum ShortAddressDecoding {
    static func decode<K: CodingKey>(_ container: KeyedDecodingContainer<K>, forKey key: K) throws -> UInt16 {
        if let number = try? container.decode(Int.self, forKey: key) {
            guard let value = UInt16(exactly: number) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                       debugDescription: "address \(number) is not a 16-bit short address")
            }
            return value
        }
        let text = try container.decode(String.self, forKey: key)
        guard let value = parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container,
                                                   debugDescription: "address '\(text)' is not a 16-bit short address such as 0x0001")
        }
        return value
    }

    static func parse(_ text: String) -> UInt16? {
        let trimmed = text.trimmingCharacters(in: " \t")
        if trimmed.hasPrefix("0x") || trimmed.hasPrefix("0X") { return UInt16(trimmed.dropFirst(2), radix: 16) }
        return UInt16(trimmed)
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice.removeFirst() }
        while let last = slice.last, characters.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
