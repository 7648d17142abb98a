/// A JSON value with its bytes written once: for a value that goes into many payloads unchanged
/// (a stage's attributes, in the feedback of every measurement), copied instead of written again.
/// Equal, and hashed, by its value.
public struct RenderedJSON: Hashable, Sendable {
    public let value: JSONValue
    /// `value` as `JSONBytes` writes it.
    public let bytes: [UInt8]

    public init(_ value: JSONValue) {
        self.value = value
        var writer = JSONBytes(capacity: 64)
        writer.append(value)
        bytes = writer.takeBytes()
    }

    public static func == (a: RenderedJSON, b: RenderedJSON) -> Bool { a.value == b.value }

    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// Members of an object with their bytes written once, for members that go into many payloads
/// unchanged (a peer's name and address, in the `range` of every measurement): copied after the
/// member before them, their separator included.
public struct RenderedMembers: Sendable {
    /// `, "key": value, …`: as `JSONBytes` writes these members after another one.
    public let bytes: [UInt8]

    /// The members `write` writes with `JSONBytes.member` and the values after them.
    public init(_ write: (inout JSONBytes) -> Void) {
        var writer = JSONBytes(capacity: 64)
        // A member before them, so that the first one is written with its separator.
        writer.beginObject()
        writer.member(StaticString("_"))
        writer.append(.null)
        let start = writer.count
        write(&writer)
        bytes = writer.withBytes(in: start..<writer.count) { Array($0) }
    }
}

extension JSONBytes {
    /// Members rendered before, after the member just written.
    public mutating func append(_ members: RenderedMembers) {
        precondition(count > 0, "rendered members follow another member")
        appendRendered(members.bytes)
    }
}
