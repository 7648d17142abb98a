/// One-line JSON of `JSONValue`s, written straight into bytes: the form every MQTT payload takes,
/// so the agent's hot path (one `range` message per measurement) builds no intermediate `String`
/// and grows no string storage scalar by scalar. The one JSON writer.
///
/// `", "` and `": "` separators, keys in the given order, integers in decimal, doubles as Swift's
/// shortest round-trip `description` (`1.0`, `-0.0`, `1e-05`), non-finite doubles as `null`, and
/// strings with the RFC 8259 escapes (`\"`, `\\`, `\n`, `\r`, `\t`, `\u00XX` for other control
/// characters) while every other byte, non-ASCII UTF-8 included, is copied through.
///
/// A writer cannot be copied: its buffer's storage is its own from the start, so that none of a
/// payload's few dozen writes asks the runtime whether it is (an array's and `ByteBuffer`'s every
/// append does: some 1.8k instructions a notification of the agent's 16 payloads). `init(continuing:)`
/// and `finish()` hand a buffer from one writer to the next.
public struct JSONBytes: ~Copyable, Sendable {
    /// Keys and values are written straight into the buffer's room (`ByteBuffer.reserveOwned`).
    @usableFromInline var buffer: ByteBuffer
    public var count: Int { buffer.count }

    /// `capacity`: a guess at the size, so that a typical payload needs a single allocation.
    public init(capacity: Int) { buffer = ByteBuffer(capacity: capacity) }

    /// A writer that appends to `buffer`'s bytes, in its storage if nothing else shares it.
    public init(continuing buffer: consuming ByteBuffer) {
        buffer.makeUnique()
        self.buffer = buffer
    }

    /// The bytes written, for a writer to continue later.
    public consuming func finish() -> ByteBuffer { buffer }

    /// Lends the bytes of `range` (positions among what was written) for the time of the call.
    public func withBytes<R, E: Error>(in range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try buffer.withBytes(in: range, body)
    }

    /// The bytes written, as an array of their own.
    public var bytes: [UInt8] { buffer.bytes }

    /// Hands the bytes over and leaves the writer empty.
    public mutating func takeBytes() -> [UInt8] {
        let taken = bytes
        buffer.removeAll()
        return taken
    }

    /// Forgets what was written and keeps the room for the next bytes.
    public mutating func removeAll() { buffer.removeAll() }

    /// Bytes already rendered as JSON (a payload made elsewhere), copied as they are.
    public mutating func appendRendered(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    /// Bytes already rendered, lent for the time of the call.
    public mutating func appendRendered(_ bytes: UnsafeBufferPointer<UInt8>) { put(bytes) }

    /// A value written before, copied as it is.
    public mutating func append(_ rendered: RenderedJSON) { appendRendered(rendered.bytes) }

    /// One JSON object as the bytes a payload carries, keys in the order given.
    public static func object(_ fields: [JSONMember]) -> [UInt8] {
        // ~24 bytes a field covers a `range` payload (14 fields, ~330 bytes) in one allocation; the
        // 256-byte floor a `feedback` payload (7 fields, but nested attributes and cue, ~220 bytes),
        // which would otherwise grow its buffer once more.
        var writer = JSONBytes(capacity: Swift.max(256, 32 + 24 * fields.count))
        writer.appendObject(fields)
        return writer.takeBytes()
    }

    public mutating func appendObject(_ fields: [JSONMember]) {
        put(UInt8(ascii: "{"))
        var first = true
        for field in fields {
            if !first { appendSeparator(UInt8(ascii: ",")) }
            first = false
            appendString(field.key)
            appendSeparator(UInt8(ascii: ":"))
            append(field.value)
        }
        put(UInt8(ascii: "}"))
    }

    public mutating func append(_ value: JSONValue) {
        switch value {
        case let .int(v): appendInteger(v)
        case let .double(v):
            appendNumber(v)
        case let .string(s): appendString(s)
        case let .bool(b): appendBool(b)
        case .null: appendNull()
        case let .list(items):
            put(UInt8(ascii: "["))
            var first = true
            for item in items {
                if !first { appendSeparator(UInt8(ascii: ",")) }
                first = false
                append(item)
            }
            put(UInt8(ascii: "]"))
        case let .object(fields): appendObject(fields)
        }
    }

    // MARK: Writing an object member by member (the per-measurement payloads, without a member list)

    @inlinable public mutating func beginObject() { put(UInt8(ascii: "{")) }
    @inlinable public mutating func endObject() { put(UInt8(ascii: "}")) }
    @inlinable public mutating func beginList() { put(UInt8(ascii: "[")) }
    @inlinable public mutating func endList() { put(UInt8(ascii: "]")) }

    /// Before each item of a list begun with `beginList`: the separator after the first.
    public mutating func listItem() {
        if buffer.last != UInt8(ascii: "[") { appendSeparator(UInt8(ascii: ",")) }
    }

    /// `"key": ` after `{`, else `, "key": `: the separators `appendObject` writes. Keys are
    /// literals of the payload schema and never need escaping.
    ///
    /// Inlined into the payload writers of other modules (with the buffer's `reserve` and
    /// `advance`, hence their `@usableFromInline` parts): a payload writes a member for nearly
    /// every value, and the calls cost the agent 2.4k instructions a notification of 16 payloads.
    @inlinable @inline(__always)
    public mutating func member(_ key: StaticString) {
        // Keys are string literals: a pointer to their UTF-8 (no closure for `withUTF8Buffer`).
        let start = key.utf8Start, length = key.utf8CodeUnitCount
        var p = buffer.reserveOwned(length + 6)
        let written: Int
        // The byte before the room reserved is the last one written.
        if count > 0, p[-1] != UInt8(ascii: "{") {
            p[0] = UInt8(ascii: ",")
            p[1] = UInt8(ascii: " ")
            p += 2
            written = length + 6
        } else {
            written = length + 4
        }
        p[0] = UInt8(ascii: "\"")
        (p + 1).update(from: start, count: length)
        p[length + 1] = UInt8(ascii: "\"")
        p[length + 2] = UInt8(ascii: ":")
        p[length + 3] = UInt8(ascii: " ")
        buffer.advance(by: written)
    }

    /// `"name": ` for a name that is data (a rule's name, escaped as a string), with the
    /// separator ``member(_:)`` writes.
    public mutating func member(named name: String) {
        if count > 0, buffer.last != UInt8(ascii: "{") { appendSeparator(UInt8(ascii: ",")) }
        appendString(name)
        appendSeparator(UInt8(ascii: ":"))
    }

    /// A double as its shortest round-trip text (`description`): a short decimal digit by digit
    /// (`appendShortDecimal`), any other by `Double.write(to:)` through `Forwarding` below —
    /// `description` builds a `String`, which needs heap storage beyond 15 bytes
    /// (`0.30000000000000004`), an allocation per such number of every payload.
    public mutating func appendNumber(_ value: Double?) {
        guard let value, value.isFinite else { return appendNull() }
        if !appendShortDecimal(value) {
            withUnsafeMutablePointer(to: &self) { writer in
                var digits = Forwarding(writer: writer)
                value.write(to: &digits)
            }
        }
    }

    /// `Double.write(to:)` hands its digits to a `TextOutputStream`, as a buffer on the stack, and
    /// a stream is copyable: this one passes them on to the writer, for the time of the call.
    private struct Forwarding: TextOutputStream {
        let writer: UnsafeMutablePointer<JSONBytes>

        mutating func write(_ string: String) { writer.pointee.appendASCII(string) }

        mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { writer.pointee.put(buffer) }
    }

    /// `value` when it is a whole number of ten-thousandths, at least one and below 10^9 in
    /// magnitude — a distance in centimetres or millimetres, a progress or an angle rounded for a
    /// payload: nearly every number written — in the digits `description` gives it, without its
    /// general algorithm. Such a decimal reads back as `value` (the division below is correctly
    /// rounded) and is the shortest that does: any other decimal as close has more than four
    /// decimals, doubles here being far closer together than 10^-4. False, and nothing written,
    /// for any other value.
    private mutating func appendShortDecimal(_ value: Double) -> Bool {
        let scaled = (value * 10_000).rounded()
        guard scaled != 0, abs(scaled) < 1e13, scaled / 10_000 == value else { return false }
        let magnitude = UInt64(abs(scaled))
        let fraction = Int(magnitude % 10_000)
        let p = buffer.reserveOwned(24)
        var end = 0
        if scaled < 0 {
            p[0] = UInt8(ascii: "-")
            end = 1
        }
        // The whole part (below 10^9), two digits at a time from the last.
        var whole = Int(magnitude / 10_000)
        var digits = 1
        var power = 10
        while whole >= power { digits += 1; power &*= 10 }
        var position = end + digits
        while position - end >= 2 {
            Self.putTwoDigits(whole % 100, at: p + position - 2)
            whole /= 100
            position -= 2
        }
        if position > end { p[end] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: whole) }
        end += digits
        p[end] = UInt8(ascii: ".")
        // All four decimals, then their trailing zeros taken off again but one (`2.0`, `0.25`).
        Self.putTwoDigits(fraction / 100, at: p + end + 1)
        Self.putTwoDigits(fraction % 100, at: p + end + 3)
        var decimals = 4
        while decimals > 1 && p[end + decimals] == UInt8(ascii: "0") { decimals -= 1 }
        buffer.advance(by: end + 1 + decimals)
        return true
    }

    /// `value` (0…99) as two decimal digits at `p`.
    @inline(__always)
    private static func putTwoDigits(_ value: Int, at p: UnsafeMutablePointer<UInt8>) {
        p[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10)
        p[1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
    }

    public mutating func appendNumber(_ value: Int64?) {
        if let value { appendInteger(value) } else { appendNull() }
    }

    public mutating func appendBool(_ value: Bool?) {
        switch value {
        case true?: putWord(UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e"))
        case false?:
            putWord(UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"))
            put(UInt8(ascii: "e"))
        case nil: appendNull()
        }
    }

    public mutating func appendString(_ value: String?) {
        if let value { appendString(value) } else { appendNull() }
    }

    /// A JSON string. Strings without anything to escape (nearly all of them) are copied in one go.
    public mutating func appendString(_ s: String) {
        // The agent's strings are native, hence contiguous: no copy of `s` to make them so.
        if s.utf8.withContiguousStorageIfAvailable({ appendString(utf8: $0) }) == nil {
            var text = s
            text.withUTF8 { appendString(utf8: $0) }
        }
    }

    /// A string known to need no escape — a timestamp, a word of the payloads' own vocabulary
    /// (`ok`, `gateway`) — copied between its quotes without a look at its bytes (which a debug
    /// build checks): two or three of them a measurement.
    public mutating func appendPlainString(_ s: String) {
        if s.utf8.withContiguousStorageIfAvailable({ (utf8: UnsafeBufferPointer<UInt8>) -> Void in
            assert(!Self.needsEscape(utf8), "\(s) needs escapes")
            appendQuoted(utf8)
        }) == nil {
            appendString(s)
        }
    }

    public mutating func appendPlainString(_ value: String?) {
        if let value { appendPlainString(value) } else { appendNull() }
    }

    private mutating func appendString(utf8: UnsafeBufferPointer<UInt8>) {
        if !Self.needsEscape(utf8) {
            appendQuoted(utf8)
        } else {
            put(UInt8(ascii: "\""))
            for byte in utf8 { appendEscaping(byte) }
            put(UInt8(ascii: "\""))
        }
    }

    /// `utf8` between quotes, as it is.
    private mutating func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        let p = buffer.reserveOwned(utf8.count + 2)
        p[0] = UInt8(ascii: "\"")
        if let base = utf8.baseAddress { (p + 1).update(from: base, count: utf8.count) }
        p[utf8.count + 1] = UInt8(ascii: "\"")
        buffer.advance(by: utf8.count + 2)
    }

    /// `"` and `\`, and the control characters below U+0020. Bytes of multi-byte UTF-8 sequences are
    /// all 0x80 and above, so a byte-wise test never splits a scalar.
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether any byte of `utf8` needs an escape, eight bytes at a time: a timestamp, a name or
    /// a topic is tested in a few steps instead of a comparison per byte.
    private static func needsEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = ones &* UInt64(UInt8(ascii: "\"")), backslashes = ones &* UInt64(UInt8(ascii: "\\"))
        var index = 0
        while index + 8 <= utf8.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            // A byte below 0x20, or equal to `"` or `\` (zero after the xor), sets its high bit in
            // `word - 0x20…` or `x - 0x01…` where the byte's own high bit was clear: the classic
            // test for a byte below a bound, exact for any byte whose high bit is clear.
            let below = (word &- ones &* 0x20) & ~word
            let quote = ((word ^ quotes) &- ones) & ~(word ^ quotes)
            let backslash = ((word ^ backslashes) &- ones) & ~(word ^ backslashes)
            if (below | quote | backslash) & highs != 0 {
                // Possibly a false alarm (a borrow past a byte that matched, or a byte of 0x80 and
                // above): the bytes say exactly.
                for k in index..<(index + 8) where needsEscape(base[k]) { return true }
            }
            index += 8
        }
        while index < utf8.count {
            if needsEscape(base[index]) { return true }
            index += 1
        }
        return false
    }

    private mutating func appendEscaping(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): putLiteral("\\\"")
        case UInt8(ascii: "\\"): putLiteral("\\\\")
        case UInt8(ascii: "\n"): putLiteral("\\n")
        case UInt8(ascii: "\r"): putLiteral("\\r")
        case UInt8(ascii: "\t"): putLiteral("\\t")
        case ..<0x20:
            // `\u00XX` with lower-case hex digits, as the String renderer wrote them.
            putLiteral("\\u00")
            for nibble in [byte >> 4, byte & 0xF] {
                put(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
            }
        default: put(byte)
        }
    }

    /// `", "` or `": "`: the renderer has always put a space after both.
    private mutating func appendSeparator(_ mark: UInt8) {
        let p = buffer.reserveOwned(2)
        p[0] = mark
        p[1] = UInt8(ascii: " ")
        buffer.advance(by: 2)
    }

    private mutating func appendNull() {
        putWord(UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l"))
    }

    /// Four bytes: `null`, `true`, most of `false`, stored one by one. Copied from a literal
    /// (`putLiteral`), each cost several times its four stores; nearly every payload has some.
    @inline(__always)
    private mutating func putWord(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) {
        let p = buffer.reserveOwned(4)
        (p[0], p[1], p[2], p[3]) = (a, b, c, d)
        buffer.advance(by: 4)
    }

    /// Decimal digits of `value`, `Int64.min` included (its magnitude fits `UInt64`): at most a
    /// sign and 19 digits, written least significant first and then put in order in place.
    private mutating func appendInteger(_ value: Int64) {
        let p = buffer.reserveOwned(20)
        do {
            var end = 0
            if value < 0 {
                p[0] = UInt8(ascii: "-")
                end = 1
            }
            var low = end
            var magnitude = value.magnitude
            repeat {
                p[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                end += 1
                magnitude /= 10
            } while magnitude > 0
            var high = end - 1
            while low < high {
                (p[low], p[high]) = (p[high], p[low])
                low += 1
                high -= 1
            }
            buffer.advance(by: end)
        }
    }

    /// Any text (`TextOutputStream`), copied as UTF-8.
    private mutating func appendASCII(_ text: String) {
        var text = text
        text.withUTF8 { put($0) }
    }

    /// An escape: its bytes from the binary.
    private mutating func putLiteral(_ text: StaticString) {
        let p = buffer.reserveOwned(text.utf8CodeUnitCount)
        p.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        buffer.advance(by: text.utf8CodeUnitCount)
    }

    /// Inlined, as the braces that call it: a call for each brace cost about 30 instructions.
    @inlinable @inline(__always)
    mutating func put(_ byte: UInt8) {
        buffer.reserveOwned(1)[0] = byte
        buffer.advance(by: 1)
    }

    private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        buffer.reserveOwned(bytes.count).update(from: base, count: bytes.count)
        buffer.advance(by: bytes.count)
    }
}
