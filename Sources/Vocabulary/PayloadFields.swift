/// A payload declared member by member: each member's key, its JSON Schema and how its value is
/// taken from `Source` (what the payload is written from), in one place. The builder renders the
/// members from it (``members(_:)``) and the AsyncAPI document takes the schema from it
/// (``schema``), so that a new member is one line that both see.
///
/// For the payloads written a few times a second at most (status, device, rules, state, events,
/// metrics, answers, the fuse's site tree). The payloads of every measurement (`range`,
/// `feedback`, `position`, `ranking`) are written member by member straight into the outbox
/// instead, with a ``JSONSchema`` declared beside their writer (see `PayloadSchemaTests`).
public struct PayloadFields<Source>: Sendable {
    /// One member.
    public struct Field: Sendable {
        public let property: JSONSchema.Property
        /// The value; nil leaves the member out (only for a member that is not required).
        let value: @Sendable (Source) -> JSONValue?

        /// A member every payload has.
        public init(_ key: PayloadKey, _ schema: JSONSchema, _ value: @escaping @Sendable (Source) -> JSONValue) {
            property = JSONSchema.Property(key, schema)
            self.value = value
        }

        private init(property: JSONSchema.Property, value: @escaping @Sendable (Source) -> JSONValue?) {
            self.property = property
            self.value = value
        }

        /// A member that is there only when `value` gives one. `JSONValue` is a nil literal
        /// itself (JSON's `null`): leave the member out with `.none`, not `nil`.
        public static func optional(_ key: PayloadKey, _ schema: JSONSchema,
                                    _ value: @escaping @Sendable (Source) -> JSONValue?) -> Field {
            Field(property: JSONSchema.Property(key, schema, required: false), value: value)
        }
    }

    public let fields: [Field]

    public init(_ fields: [Field]) { self.fields = fields }

    /// The payload's members for `source`, in declaration order.
    public func members(_ source: Source) -> [JSONMember] {
        var members: [JSONMember] = []
        members.reserveCapacity(fields.count)
        for field in fields {
            if let value = field.value(source) { members.append(JSONMember(field.property.key, value)) }
        }
        return members
    }

    /// The payload's schema: an object of exactly these members.
    public var schema: JSONSchema { .object(fields.map(\.property)) }
}
