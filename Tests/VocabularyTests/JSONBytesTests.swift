import Testing
import Vocabulary

/// What the one JSON writer writes: the escapes of RFC 8259 wherever in a string the byte that
/// needs one falls, and writers that continue one buffer without sharing their writes.
@Suite struct JSONBytesTests {
    /// Each byte that needs an escape, and bytes that look like one to a word-at-a-time test
    /// (0x80 and above, 0x20, 0x21, 0x5B, 0x5D), at every position of strings up to 24 bytes
    /// long, amid ASCII and multi-byte UTF-8: the output is exactly a byte-by-byte escaping.
    @Test func escapesEveryByteThatNeedsItAtEveryPosition() {
        let specials: [String] = ["\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1F}", " ", "!", "[", "]", "é", "€", "😀", "\u{7F}"]
        for length in 0...24 {
            for position in 0..<max(length, 1) {
                for special in specials {
                    for filler in ["a", "ü"] {
                        var text = ""
                        for k in 0..<length { text += k == position ? special : filler }
                        var writer = JSONBytes(capacity: 16)
                        writer.appendString(text)
                        #expect(writer.takeBytes() == Self.reference(text), "\(length) \(position) \(Array(special.utf8))")
                    }
                }
            }
        }
    }

    /// A string the payloads know needs no escape (a timestamp, a word of their own) is written
    /// as `appendString` writes it, nil as `null`.
    @Test func plainStringsAreWrittenAsAnyString() {
        for text in ["2026-12-05T15:33:22.123Z", "ok", "", "RANGING_RX_TIMEOUT", "gateway"] {
            var plain = JSONBytes(capacity: 16), any = JSONBytes(capacity: 16)
            plain.appendPlainString(text)
            any.appendString(text)
            #expect(plain.takeBytes() == any.takeBytes(), "\(text)")
        }
        var writer = JSONBytes(capacity: 16)
        writer.appendPlainString(nil as String?)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "null")
    }

    /// Writers that continue one buffer each write into storage of their own: neither changes
    /// the bytes of the other, nor the buffer's.
    @Test func writersContinuingOneBufferShareNothing() {
        var start = JSONBytes(capacity: 16)
        start.beginObject()
        start.member(StaticString("a"))
        let buffer = start.finish()
        var first = JSONBytes(continuing: buffer), second = JSONBytes(continuing: buffer)
        first.appendNumber(Int64(1))
        first.endObject()
        second.appendString("b")
        second.endObject()
        #expect(String(decoding: first.bytes, as: UTF8.self) == #"{"a": 1}"#)
        #expect(String(decoding: second.bytes, as: UTF8.self) == #"{"a": "b"}"#)
        #expect(String(decoding: buffer.bytes, as: UTF8.self) == #"{"a": "#)
        // Growing beyond the first storage keeps what was written.
        var long = JSONBytes(capacity: 16)
        long.beginList()
        for k in 0..<1_000 {
            long.listItem()
            long.appendNumber(Int64(k))
        }
        long.endList()
        #expect(String(decoding: long.bytes, as: UTF8.self) == "[" + (0..<1_000).map(String.init).joined(separator: ", ") + "]")
    }

    private static func reference(_ text: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): out += Array(#"\\"#.utf8)
            case UInt8(ascii: "\n"): out += Array(#"\n"#.utf8)
            case UInt8(ascii: "\r"): out += Array(#"\r"#.utf8)
            case UInt8(ascii: "\t"): out += Array(#"\t"#.utf8)
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }
}
