/// A JSON Schema of a payload or of a member of one, as the AsyncAPI document (`uwb2mqtt schema
/// api`) gives it: the keywords of draft-07 that AsyncAPI 3.0's default schema format takes, in
/// the order they are declared.
///
/// Why a value and not text: a payload's schema is declared where the payload is written, from
/// the same ``PayloadKey``s (``PayloadFields`` holds each member's schema beside its value), and
/// the document is assembled from those values, so that what it says cannot be a copy that
/// drifted. Objects are closed (`additionalProperties: false`) unless said otherwise: a member
/// the declaration does not know is a contract change, and the end-to-end tests fail on it.
public struct JSONSchema: Hashable, Sendable {
    /// The keywords, in order.
    public private(set) var keywords: [JSONMember]

    public init(_ keywords: [JSONMember]) { self.keywords = keywords }

    /// The schema as JSON.
    public var value: JSONValue { .object(keywords) }

    /// One member of an object schema.
    public struct Property: Hashable, Sendable {
        public var key: String
        public var schema: JSONSchema
        /// Whether every payload has the member (else it may be left out).
        public var required: Bool

        public init(_ key: PayloadKey, _ schema: JSONSchema, required: Bool = true) {
            self.init(name: key.text, schema, required: required)
        }

        /// A member whose name is not one of the payloads' own (a schema's keyword, a name from
        /// another protocol).
        public init(name: String, _ schema: JSONSchema, required: Bool = true) {
            key = name
            self.schema = schema
            self.required = required
        }
    }

    // MARK: types

    public static let string = JSONSchema([JSONMember("type", "string")])
    public static let number = JSONSchema([JSONMember("type", "number")])
    public static let integer = JSONSchema([JSONMember("type", "integer")])
    public static let boolean = JSONSchema([JSONMember("type", "boolean")])
    /// Any JSON value.
    public static let anyValue = JSONSchema([])
    /// A count or a level: an integer from 0.
    public static let count = JSONSchema.integer.minimum(0)
    /// A time as every payload writes it (`Timestamp.rfc3339`).
    public static let timestamp = JSONSchema([JSONMember("type", "string"), JSONMember("format", "date-time")])
        .described("RFC 3339 UTC with milliseconds, e.g. 2026-11-29T18:30:00.123Z")
    /// A free-form object whose members are the rules file's or another program's, not the API's.
    public static let freeObject = JSONSchema([JSONMember("type", "object")])

    /// One of `values`, strings.
    public static func enumeration(_ values: [String]) -> JSONSchema {
        JSONSchema([JSONMember("type", "string"), JSONMember("enum", .list(values.map(JSONValue.string)))])
    }

    /// Exactly `value`.
    public static func constant(_ value: JSONValue) -> JSONSchema { JSONSchema([JSONMember("const", value)]) }

    /// A list of `items`.
    public static func list(of items: JSONSchema) -> JSONSchema {
        JSONSchema([JSONMember("type", "array"), JSONMember("items", items.value)])
    }

    /// An object with exactly `properties` (closed: any other member is invalid).
    public static func object(_ properties: [Property]) -> JSONSchema {
        var keywords = [JSONMember("type", "object"),
                        JSONMember("properties", .object(properties.map { JSONMember($0.key, $0.schema.value) }))]
        let required = properties.filter(\.required).map { JSONValue.string($0.key) }
        if !required.isEmpty { keywords.append(JSONMember("required", .list(required))) }
        keywords.append(JSONMember("additionalProperties", false))
        return JSONSchema(keywords)
    }

    /// An object whose member names are data (an approach rule's name) and whose values are each
    /// `values`.
    public static func map(of values: JSONSchema) -> JSONSchema {
        JSONSchema([JSONMember("type", "object"), JSONMember("additionalProperties", values.value)])
    }

    /// Valid when at least one of `choices` is: for choices that may overlap.
    public static func anyOf(_ choices: [JSONSchema]) -> JSONSchema {
        JSONSchema([JSONMember("anyOf", .list(choices.map(\.value)))])
    }

    /// Valid when exactly one of `choices` is.
    public static func oneOf(_ choices: [JSONSchema]) -> JSONSchema {
        JSONSchema([JSONMember("oneOf", .list(choices.map(\.value)))])
    }

    // MARK: refinements

    /// The same, or `null`: an unknown value is `null`, never made up.
    public func orNull() -> JSONSchema {
        var copy = self
        if let i = keywords.firstIndex(where: { $0.key == "type" }) {
            switch keywords[i].value {
            case let .string(type): copy.keywords[i].value = .list([.string(type), "null"])
            case let .list(types) where !types.contains("null"): copy.keywords[i].value = .list(types + ["null"])
            default: break
            }
            if let e = keywords.firstIndex(where: { $0.key == "enum" }), case let .list(values) = keywords[e].value, !values.contains(.null) {
                copy.keywords[e].value = .list(values + [.null])
            }
            return copy
        }
        // No type of its own (a constant, a choice): either it or null.
        return JSONSchema([JSONMember("oneOf", .list([value, .object([JSONMember("type", "null")])]))])
    }

    /// The same, with what it means to a reader (units, where the value comes from).
    public func described(_ text: String) -> JSONSchema { with("description", .string(text)) }

    public func minimum(_ bound: Double) -> JSONSchema { with("minimum", Self.number(bound)) }
    public func maximum(_ bound: Double) -> JSONSchema { with("maximum", Self.number(bound)) }

    /// The same, between the bounds readers of the payloads hold it to (`PayloadReader`).
    public func within(_ bounds: PayloadBounds) -> JSONSchema { minimum(bounds.range.lowerBound).maximum(bounds.range.upperBound) }

    /// The same, and at most `count` items (a list).
    public func maxItems(_ count: Int) -> JSONSchema { with("maxItems", .int(Int64(count))) }

    /// The same, with one more keyword (replacing one of the same name).
    public func with(_ keyword: String, _ value: JSONValue) -> JSONSchema {
        var copy = self
        if let i = keywords.firstIndex(where: { $0.key == keyword }) {
            copy.keywords[i].value = value
        } else {
            copy.keywords.append(JSONMember(keyword, value))
        }
        return copy
    }

    /// The declared members of an object schema, in order (empty for any other).
    public var properties: [String] {
        guard case let .object(members)? = value["properties"] else { return [] }
        return members.map(\.key)
    }

    private static func number(_ bound: Double) -> JSONValue {
        bound.rounded() == bound && abs(bound) < 1e15 ? .int(Int64(bound)) : .double(bound)
    }
}
