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
