/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF), the
/// checksum of zlib, PNG and `cksum -a crc32b`.
///
/// The recording format and the broker journal protect every record with it so that a reader can
/// tell an intact record from a torn write or a flipped bit, and can find the next intact record
/// after damage by scanning: a random position passes the check with probability 2⁻³². Both files
/// use this one definition, so a recording and a journal check their records the same way.
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var c = UInt32(index)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        checksum(bytes, bytes.indices)
    }

    /// The checksum of `bytes[range]` without copying them.
    public static func checksum(_ bytes: [UInt8], _ range: Range<Int>) -> UInt32 {
        bytes.withUnsafeBytes { bytes in
            table.withUnsafeBufferPointer { table in
                var crc: UInt32 = 0xFFFF_FFFF
                for byte in UnsafeRawBufferPointer(rebasing: bytes[range]) {
                    crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
                }
                return crc ^ 0xFFFF_FFFF
            }
        }
    }
}
