import FoundationEssentials
import UCI

/// Any JSON value, decoded strictly (a boolean is never a number), as a `FieldValue` so that a
/// request's `id` is echoed exactly as it was sent.
struct JSONValue: Decodable {
    let value: FieldValue

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            value = .object(try container.allKeys.sorted { $0.stringValue < $1.stringValue }.map {
                Field($0.stringValue, try container.decode(JSONValue.self, forKey: $0).value)
            })
        } else if var container = try? decoder.unkeyedContainer() {
            var items: [FieldValue] = []
            while !container.isAtEnd { items.append(try container.decode(JSONValue.self).value) }
            value = .list(items)
        } else {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { value = .null }
            else if let bool = try? container.decode(Bool.self) { value = .bool(bool) }
            else if let int = try? container.decode(Int64.self) { value = .int(int) }
            else if let double = try? container.decode(Double.self) { value = .double(double) }
            else { value = .string(try container.decode(String.self)) }
        }
    }

    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
