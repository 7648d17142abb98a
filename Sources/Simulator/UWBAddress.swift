import UCI

/// A two-byte UWB short address as Jetpack's `UwbAddress` holds it: the bytes in array order,
/// which is also the order they go on the wire (android-interop.md §6).
///
/// Jetpack prints and parses it as `"AB:CD"`; uwb2mqtt writes the same address as the
/// little-endian value `0xCDAB` (`MacAddress.short`, the scenario's `address`). Keeping both
/// views on one type is what lets the simulator say "byte order?" instead of only "different".
public struct UWBAddress: Hashable, Sendable, CustomStringConvertible {
    /// Wire order.
    public let first: UInt8
    public let second: UInt8

    public init(_ first: UInt8, _ second: UInt8) {
        self.first = first
        self.second = second
    }

    /// The address uwb2mqtt writes as `shortAddress` (`0xCDAB` is wire `AB CD`).
    public init(shortAddress: UInt16) {
        self.init(UInt8(truncatingIfNeeded: shortAddress), UInt8(truncatingIfNeeded: shortAddress >> 8))
    }

    /// Jetpack's text form: two hex bytes separated by a colon, `"AB:CD"` (either case), read
    /// as the gateway's phone exchange reads it.
    public init?(_ text: some StringProtocol) {
        guard let value = WireOrderAddress.value(of: String(text)) else { return nil }
        self.init(shortAddress: value)
    }

    /// The little-endian value, as DEVICE_MAC_ADDRESS / DST_MAC_ADDRESS carry it and
    /// uwb2mqtt writes it.
    public var shortAddress: UInt16 { UInt16(first) | UInt16(second) << 8 }

    /// The same two bytes the other way round: what an old Play-services build sent (§9).
    public var byteSwapped: UWBAddress { UWBAddress(second, first) }

    /// Jetpack's `UwbAddress.toString()`: `"AB:CD"`.
    public var description: String { WireOrderAddress.text(of: shortAddress) }
}

/// Two upper-case hex digits.
func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
