/// The eight bytes of a static-STS session key as Jetpack's `sessionKeyInfo` carries them
/// (android-interop.md §5): VENDOR_ID is the first two, STATIC_STS_IV the other six, each sent
/// on the wire in array order. Both ends of a session must hold the same eight bytes.
public struct SessionKeyInfo: Hashable, Sendable, CustomStringConvertible {
    /// Wire order.
    public let bytes: [UInt8]

    public static let size = 8

    /// nil unless exactly eight bytes.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count == Self.size else { return nil }
        self.bytes = bytes
    }

    /// Sixteen hex digits, optionally separated as `Hex` accepts (`08 07 01 02 03 04 05 06`).
    public init?(hex: some StringProtocol) {
        guard let bytes = try? Hex.bytes(hex) else { return nil }
        self.init(bytes)
    }

    /// A fresh key from the system's random source: phones forget a session's key with it, so
    /// nothing is gained by reusing one.
    public static func random() -> SessionKeyInfo {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A fresh key from `generator` (the system's random source in the agent).
    public static func random(using generator: inout some RandomNumberGenerator) -> SessionKeyInfo {
        SessionKeyInfo((0..<size).map { _ in UInt8.random(in: .min ... .max, using: &generator) })!
    }

    /// VENDOR_ID as the little-endian value the TLV carries.
    public var vendorID: UInt16 { UInt16(bytes[0]) | UInt16(bytes[1]) << 8 }
    /// STATIC_STS_IV, wire order.
    public var staticIV: [UInt8] { Array(bytes[2...]) }

    /// Lower-case hex without separators, as the MQTT API writes it.
    public var description: String { bytes.map { hexDigits(UInt64($0), count: 2).lowercased() }.joined() }

    /// Keys published in examples and SDKs: anyone can compute the STS of a session using one.
    public var isWellKnown: Bool { Self.wellKnown.contains(self) }

    /// Qorvo's example vendor id 0x0708 with IV 01…06, as uwb2mqtt has always sent it and the
    /// interop reports use it (`08 07 01 02 03 04 05 06`).
    public static let qorvoExample = SessionKeyInfo([0x08, 0x07, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])!

    static let wellKnown: Set<SessionKeyInfo> = [
        qorvoExample,
        SessionKeyInfo([0x07, 0x08, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06])!,  // AOSP's DL-TDoA default
        SessionKeyInfo([UInt8](repeating: 0, count: size))!,
    ]
}
