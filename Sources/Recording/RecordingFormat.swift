/// The on-disk layout of a UCI recording (`uwb2mqtt record`, config `record:`); FORMAT.md beside this
/// file is the same text for readers who do not read Swift.
///
/// Every integer is little-endian. A file is a header followed by records, nothing else:
///
/// ```
/// header   magic     8 bytes  "UWBREC1\n"
///          version   u16      1
///          flags     u16      0 (reserved: writers write 0, readers ignore)
///          start     i64      microseconds since 1970-01-01T00:00:00Z when the file was started
///          segment   u32      0 for the first file of a recording, +1 at every rotation
///          meta_len  u32      length of the metadata, at most 1 MiB
///          metadata  meta_len bytes of UTF-8 (free text; the agent writes a JSON object)
///          crc       u32      CRC-32 of every header byte before it
///
/// record   marker    u8       0xA5
///          flags     u8       bit 0: the packet went host → device (writers today record only
///                             what the device sent, flag 0); other bits reserved, ignored
///          length    varint   packet length in bytes, 1 … 65539 (a UCI header plus 65535)
///          time      varint   ZigZag(receive time − header start), microseconds; negative when the
///                             wall clock stepped back
///          packet    length bytes, exactly as read from the device
///          crc       u32      CRC-32 of the record from its marker to its last packet byte
/// ```
///
/// Why this shape:
/// - Append-only and self-delimiting: each record is written with one `write(2)`, so a crash
///   leaves at most one torn record, at the end; the CRC tells a torn or damaged record from an
///   intact one, and the marker plus CRC let a reader find the next intact record by scanning.
/// - Times are offsets from the file's own start, not deltas between records: a damaged record
///   never takes the times of the records after it down with it.
/// - Each rotated file has its own header (with `segment`), so every file replays on its own and
///   a set of them sorts into order without relying on file names.
/// - Varints keep the framing at 9–16 bytes a record (a ranging notification is 30–80 bytes).
public enum RecordingFormat {
    /// The first eight bytes of every recording.
    public static let magic: [UInt8] = Array("UWBREC1\n".utf8)
    /// The version this code writes and reads.
    public static let version: UInt16 = 1
    /// Byte that starts every record.
    public static let recordMarker: UInt8 = 0xA5
    /// Largest packet a record holds: a UCI data packet (4-byte header, 16-bit payload length).
    public static let maximumPacketLength = 4 + 65_535
    /// Largest metadata block; more is damage, not metadata.
    public static let maximumMetadataLength = 1 << 20
    /// Header bytes around the metadata: magic 8, version 2, flags 2, start 8, segment 4, length 4, crc 4.
    static let headerFixedLength = 32
    /// The shortest possible record: marker, flags, 1-byte length, 1-byte time, 1 packet byte, crc.
    static let minimumRecordLength = 9
}
