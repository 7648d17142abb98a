/// Reads JSON text (RFC 8259) into a `JSONValue`: what a request body, a payload `watch` shows and
/// a fuse input arrive as. Strict where JSON is strict (no trailing commas, comments, single
/// quotes, leading zeros or bare words; control characters in strings refused), object members kept
/// in the order written, whole numbers that fit an `Int64` as `int`.
///
/// Written here rather than taken from Foundation's `JSONDecoder`, which cost the agent most of
/// its time per request in a flood (a `Decoder` and its containers for a two-byte `{}`), and
/// without Foundation so that every target can read what `JSONBytes` writes.
public struct JSONReader {
    /// Why a text is not JSON, and the byte offset where reading stopped.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// Lists and objects nested deeper than this are refused: the reader recurses, and a body of
    /// ten thousand `[` must be an error, not a stack overflow.
    public static let maximumDepth = 64

    /// The one JSON value `bytes` hold, with whitespace around it allowed and nothing else.
    public static func value(_ bytes: some Collection<UInt8>) throws(Failure) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { buffer throws(Failure) in
            var reader = JSONReader(bytes: buffer)
            reader.skipWhitespace()
            let value = try reader.readValue(depth: 0)
            reader.skipWhitespace()
            guard reader.position == buffer.count else { throw reader.failure("text after the value") }
            return value
        }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private func failure(_ reason: String) -> Failure { Failure(offset: position, reason: reason) }

    private var next: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = next, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard next == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
        position += 1
    }

    private mutating func readValue(depth: Int) throws(Failure) -> JSONValue {
        guard let byte = next else { throw failure("expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readList(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try readWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try readWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try readWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw failure("expected a value")
        }
    }

    private mutating func readWord(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count,
              UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[position..<position + count]) else {
            throw failure("expected a value")
        }
        position += count
    }

    private mutating func readObject(depth: Int) throws(Failure) -> JSONValue {
        var members: [JSONMember] = []
        try readItems(depth: depth, closing: UInt8(ascii: "}")) { reader throws(Failure) in
            guard reader.next == UInt8(ascii: "\"") else { throw reader.failure("expected a member name in quotes") }
            let key = try reader.readString()
            reader.skipWhitespace()
            try reader.expect(UInt8(ascii: ":"))
            reader.skipWhitespace()
            members.append(JSONMember(key, try reader.readValue(depth: depth)))
        }
        return .object(members)
    }

    private mutating func readList(depth: Int) throws(Failure) -> JSONValue {
        var items: [JSONValue] = []
        try readItems(depth: depth, closing: UInt8(ascii: "]")) { reader throws(Failure) in
            items.append(try reader.readValue(depth: depth))
        }
        return .list(items)
    }

    /// From an opening bracket to its `closing` one: items separated by commas, each read by
    /// `item` from its first byte.
    private mutating func readItems(depth: Int, closing: UInt8,
                                    _ item: (inout JSONReader) throws(Failure) -> Void) throws(Failure) {
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        position += 1
        skipWhitespace()
        if next == closing {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            try item(&self)
            skipWhitespace()
            switch next {
            case UInt8(ascii: ",")?: position += 1
            case closing?: position += 1; return
            default: throw failure("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
            }
        }
    }

    /// A string from its opening quote. A run without escapes is taken in one piece (the usual
    /// case: keys and ids); invalid UTF-8 is refused, as it is not JSON text.
    private mutating func readString() throws(Failure) -> String {
        position += 1
        var text = ""
        var runStart = position
        func takeRun(upTo end: Int) throws(Failure) {
            guard runStart < end else { return }
            guard let run = String(validating: bytes[runStart..<end], as: UTF8.self) else {
                throw Failure(offset: runStart, reason: "invalid UTF-8 in a string")
            }
            text += run
        }
        while true {
            guard let byte = next else { throw failure("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                try takeRun(upTo: position)
                position += 1
                return text
            case UInt8(ascii: "\\"):
                try takeRun(upTo: position)
                position += 1
                text.unicodeScalars.append(try readEscape())
                runStart = position
            case 0..<0x20:
                throw failure("a control character in a string")
            default:
                position += 1
            }
        }
    }

    /// The character after a backslash; `\uD83D\uDE00` pairs make one scalar, and a lone
    /// surrogate is refused (it is no character).
    private mutating func readEscape() throws(Failure) -> Unicode.Scalar {
        guard let byte = next else { throw failure("unterminated string") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try readHex4()
            if (0xD800..<0xDC00).contains(unit) {
                guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw failure("a lone surrogate in a string")
                }
                position += 2
                let low = try readHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a string") }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(unit) else { throw failure("a lone surrogate in a string") }
            return scalar
        default:
            position -= 1
            throw failure("an unknown escape in a string")
        }
    }

    private mutating func readHex4() throws(Failure) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next else { throw failure("unterminated string") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("expected four hexadecimal digits after \\u")
            }
            unit = unit << 4 | UInt32(digit)
            position += 1
        }
        return unit
    }

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`: an `int` when there is neither fraction
    /// nor exponent and it fits, else a `double`.
    private mutating func readNumber() throws(Failure) -> JSONValue {
        let start = position
        func isDigit(_ byte: UInt8?) -> Bool { byte.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false }
        func digits() throws(Failure) {
            guard isDigit(next) else { throw failure("expected a digit") }
            while isDigit(next) { position += 1 }
        }
        if next == UInt8(ascii: "-") { position += 1 }
        if next == UInt8(ascii: "0") {
            position += 1
            if isDigit(next) { throw failure("a number with a leading zero") }
        } else {
            try digits()
        }
        var whole = true
        if next == UInt8(ascii: ".") {
            position += 1
            try digits()
            whole = false
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            position += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { position += 1 }
            try digits()
            whole = false
        }
        // ASCII digits and signs only, so this is valid UTF-8.
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if whole, let int = Int64(text) { return .int(int) }
        guard let double = Double(text), double.isFinite else {
            throw Failure(offset: start, reason: "a number out of range")
        }
        return .double(double)
    }
}
