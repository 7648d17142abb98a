/// Hex text ⇄ bytes, as people paste UCI captures: `62 00 00 38`, `62:00`, `62.00`, `0x62, 0x00`, `620000`.
public enum Hex {
    /// Parses hex with optional separators (whitespace, `:`, `.`, `,`, `-`) and `0x` prefixes.
    /// A `0x` token of one digit (`0x7`) is one byte; otherwise digits pair up left to right.
    public static func bytes(_ text: some StringProtocol) throws(UCIDecodingError) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count / 2)
        var token: [UInt8] = []
        func flush() throws(UCIDecodingError) {
            var digits = token[...]
            var prefixed = false
            if digits.count >= 2, digits.first == UInt8(ascii: "0"),
               digits[digits.startIndex + 1] | 0x20 == UInt8(ascii: "x") {
                digits = digits.dropFirst(2)
                prefixed = true
            }
            if digits.isEmpty {
                if prefixed { throw .invalidHex("\"0x\" without digits") }
                token.removeAll(keepingCapacity: true)
                return
            }
            if digits.count % 2 == 1 {
                guard prefixed else {
                    throw .invalidHex("odd number of digits in \"\(String(decoding: token, as: UTF8.self))\"")
                }
                digits = [UInt8(ascii: "0")] + digits
            }
            var index = digits.startIndex
            while index < digits.endIndex {
                guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else {
                    throw .invalidHex("\"\(String(decoding: token, as: UTF8.self))\"")
                }
                result.append(high << 4 | low)
                index += 2
            }
            token.removeAll(keepingCapacity: true)
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                 UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: "-"):
                try flush()
            default:
                token.append(byte)
            }
        }
        try flush()
        return result
    }

    /// Lower-case hex without separators, as the JSON output carries payloads.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always)
    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
