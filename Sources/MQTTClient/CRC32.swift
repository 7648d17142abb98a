/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of zlib and
/// `cksum -a crc32b`: tells a whole journal record from a torn or damaged one. A random position
/// passes it with probability 2⁻³², which is what lets recovery resynchronise by scanning.
///
/// The recording format has its own copy (Sources/Recording): MQTTClient does not depend on it.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var c = UInt32(index)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Continues `crc` (start with 0) over `bytes`.
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = ~crc
        table.withUnsafeBufferPointer { table in
            for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
        return ~c
    }

    static func checksum(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32 {
        bytes.withUnsafeBytes { update(0, UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}
