/// A short MAC address as Jetpack writes it (`UwbAddress.toString()`): the two bytes in wire
/// order, upper-case hex, separated by a colon. `"AB:CD"` is wire `AB CD`, which is 0xCDAB in
/// the little-endian notation of `MacAddress` (android-interop.md §6). Integers are ambiguous
/// between apps, so the phone exchange uses only this form and converts once, here.
public enum WireOrderAddress {
    /// The little-endian value of `"AB:CD"`; nil unless two bytes of two hex digits each.
    public static func value(of text: String) -> UInt16? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.utf8.count == 2 && $0.allSatisfy(\.isHexDigit) }),
              let first = UInt8(parts[0], radix: 16), let second = UInt8(parts[1], radix: 16) else { return nil }
        return UInt16(first) | UInt16(second) << 8
    }

    /// `"AB:CD"` for 0xCDAB.
    public static func text(of value: UInt16) -> String {
        hexDigits(UInt64(value & 0xFF), count: 2) + ":" + hexDigits(UInt64(value >> 8), count: 2)
    }
}
