import Vocabulary
import YAMLCoding

/// Decodes `text` as `T` from a file called `t.yaml`.
func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
    try YAMLDecoder().decode(type, from: text, file: "t.yaml")
}

/// The `description` of the error decoding `text` as `T` gives, or a note that it did not fail as a
/// ``SourceError`` — tests compare the exact `file:line:column: message` a user would see.
func failure<T: Decodable>(_ type: T.Type, _ text: String) -> String {
    do {
        _ = try decode(type, text)
        return "<decoded without error>"
    } catch let error as SourceError {
        return error.description
    } catch {
        return "<not a SourceError: \(error)>"
    }
}

/// Accepts any YAML at all and reads every part of it, so syntax-level failures can be tested
/// without a matching type.
struct AnyYAML: Decodable {
    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
            for key in keyed.allKeys { _ = try keyed.decode(AnyYAML.self, forKey: key) }
        } else if var list = try? decoder.unkeyedContainer() {
            while !list.isAtEnd { _ = try list.decode(AnyYAML.self) }
        }
    }
}

/// A coding key for any string.
struct AnyKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A one-field mapping `v: …`, for tests about a single value inside a mapping.
struct Box<Value: Decodable>: Decodable {
    var v: Value
}
