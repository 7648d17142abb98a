/// One-line JSON of `JSONValue`s, written straight into bytes: the form every MQTT payload takes,
/// so the agent's hot path (one `range` message per measurement) builds no intermediate `String`
/// and grows no string storage scalar by scalar. The one JSON writer.
///
/// `", "` and `": "` separators, keys in the given order, integers in decimal, doubles as Swift's
/// shortest round-trip `description` (`1.0`, `-0.0`, `1e-05`), non-finite doubles as `null`, and
/// strings with the RFC 8259 escapes (`\"`, `\\`, `\n`, `\r`, `\t`, `\u00XX` for other control
/// characters) while every other byte, non-ASCII UTF-8 included, is copied through.
public struct JSONBytes {
    public private(set) var bytes: [UInt8] = []

    /// `capacity`: a guess at the size, so that a typical payload needs a single allocation.
    public init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// A writer that appends to `bytes` (a buffer reused for many payloads).
    public init(appendingTo bytes: [UInt8]) { self.bytes = bytes }

    /// Hands the bytes over, leaving the writer empty, so that no second reference to the storage
    /// remains and the next append to it needs no copy.
    public mutating func takeBytes() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &bytes)
        return taken
    }

    public mutating func appendObject(_ fields: [JSONMember]) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for field in fields {
            if !first { appendSeparator(UInt8(ascii: ",")) }
            first = false
            appendString(field.key)
            appendSeparator(UInt8(ascii: ":"))
            append(field.value)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func append(_ value: JSONValue) {
        switch value {
        case let .int(v): appendInteger(v)
        case let .double(v):
            appendNumber(v)
        case let .string(s): appendString(s)
        case let .bool(b): appendASCII(b ? "true" : "false")
        case .null: appendNull()
        case let .list(items):
            bytes.append(UInt8(ascii: "["))
            var first = true
            for item in items {
                if !first { appendSeparator(UInt8(ascii: ",")) }
                first = false
                append(item)
            }
            bytes.append(UInt8(ascii: "]"))
        case let .object(fields): appendObject(fields)
        }
    }

    // MARK: Writing an object member by member (the per-measurement payloads, without a member list)

    public mutating func beginObject() { bytes.append(UInt8(ascii: "{")) }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")) }
    public mutating func beginList() { bytes.append(UInt8(ascii: "[")) }
    public mutating func endList() { bytes.append(UInt8(ascii: "]")) }

    /// Before each item of a list begun with `beginList`: the separator after the first.
    public mutating func listItem() {
        if bytes.last != UInt8(ascii: "[") { appendSeparator(UInt8(ascii: ",")) }
    }

    /// `"key": ` after `{`, else `, "key": `: the separators `appendObject` writes. Keys are
    /// literals of the payload schema and never need escaping.
    public mutating func member(_ key: StaticString) {
        if bytes.last != UInt8(ascii: "{") { appendSeparator(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        appendSeparator(UInt8(ascii: ":"))
    }

    /// A double as its shortest round-trip text (`description`), written by `Double.write(to:)`
    /// through `_writeASCII` below: `description` builds a `String`, which needs heap storage
    /// beyond 15 bytes (`0.30000000000000004`), an allocation per such number of every payload.
    public mutating func appendNumber(_ value: Double?) {
        if let value, value.isFinite { value.write(to: &self) } else { appendNull() }
    }

    public mutating func appendNumber(_ value: Int64?) {
        if let value { appendInteger(value) } else { appendNull() }
    }

    public mutating func appendBool(_ value: Bool?) {
        if let value { appendASCII(value ? "true" : "false") } else { appendNull() }
    }

    public mutating func appendString(_ value: String?) {
        if let value { appendString(value) } else { appendNull() }
    }

    /// A JSON string. Strings without anything to escape (nearly all of them) are copied in one go.
    public mutating func appendString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = s
        text.withUTF8 { utf8 in
            if !utf8.contains(where: Self.needsEscape) {
                bytes.append(contentsOf: utf8)
            } else {
                for byte in utf8 { appendEscaping(byte) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `"` and `\`, and the control characters below U+0020. Bytes of multi-byte UTF-8 sequences are
    /// all 0x80 and above, so a byte-wise test never splits a scalar.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    private mutating func appendEscaping(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): appendASCII("\\\"")
        case UInt8(ascii: "\\"): appendASCII("\\\\")
        case UInt8(ascii: "\n"): appendASCII("\\n")
        case UInt8(ascii: "\r"): appendASCII("\\r")
        case UInt8(ascii: "\t"): appendASCII("\\t")
        case ..<0x20:
            // `\u00XX` with lower-case hex digits, as the String renderer wrote them.
            appendASCII("\\u00")
            for nibble in [byte >> 4, byte & 0xF] {
                bytes.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
            }
        default: bytes.append(byte)
        }
    }

    /// `", "` or `": "`: the renderer has always put a space after both.
    private mutating func appendSeparator(_ mark: UInt8) {
        bytes.append(mark)
        bytes.append(UInt8(ascii: " "))
    }

    private mutating func appendNull() { appendASCII("null") }

    /// Decimal digits of `value`, `Int64.min` included (its magnitude fits `UInt64`).
    ///
    /// The digits come out least significant first and are put in order by swapping in place:
    /// reversing `bytes[start...]` would copy the slice into a new buffer, a heap allocation for
    /// every integer of every payload.
    private mutating func appendInteger(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var low = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        var high = bytes.count - 1
        while low < high {
            bytes.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// Literals and other short texts: small strings, no allocation. Any text is copied as UTF-8.
    private mutating func appendASCII(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }
}

/// `Double.write(to:)` hands its digits to `_writeASCII` as a buffer on the stack; `write` is the
/// general path (any text, appended as UTF-8).
extension JSONBytes: TextOutputStream {
    public mutating func write(_ string: String) { appendASCII(string) }

    public mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }
}
