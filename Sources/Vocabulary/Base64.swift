/// Standard base64 (RFC 4648 §4, with padding), as iOS's `Data.base64EncodedString()` writes it
/// and every MQTT client library reads it: how binary structures travel in JSON payloads (an
/// iPhone's accessory and shareable configuration data).
///
/// Decoding is strict, since the text comes from the network: only the 64 letters, `=` padding
/// to a multiple of four, and zero bits where padding leaves some over; anything else is nil
/// (the caller says which field was wrong).
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            for position in 0..<4 {
                out.append(position <= count ? alphabet[Int(group >> (18 - 6 * UInt32(position)) & 0x3F)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// nil unless `text` is well-formed base64.
    public static func decode(_ text: String) -> [UInt8]? {
        let letters = Array(text.utf8)
        guard letters.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(letters.count / 4 * 3)
        var index = 0
        while index < letters.count {
            let last = index + 4 == letters.count
            var group: UInt32 = 0
            var padding = 0
            for position in 0..<4 {
                let letter = letters[index + position]
                if letter == UInt8(ascii: "=") {
                    // Only at the end, only in the last two places, and nothing but `=` after it.
                    guard last, position >= 2 else { return nil }
                    padding += 1
                    group <<= 6
                    continue
                }
                guard padding == 0, let value = sextet(letter) else { return nil }
                group = group << 6 | UInt32(value)
            }
            out.append(UInt8(truncatingIfNeeded: group >> 16))
            if padding < 2 { out.append(UInt8(truncatingIfNeeded: group >> 8)) } else if group & 0xFFFF != 0 { return nil }
            if padding < 1 { out.append(UInt8(truncatingIfNeeded: group)) } else if group & 0xFF != 0 { return nil }
            index += 4
        }
        return out
    }

    private static func sextet(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): letter - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): letter - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): letter - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
