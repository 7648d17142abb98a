/// Damage a reader found and stepped over: the records around it still replay.
///
/// Damage is data, not an error: a recording from the field is often cut short by a power cut or
/// written to a failing SD card, and the intact part is exactly what the person replaying it needs.
public struct RecordingProblem: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// The file ends inside a record: the last write was torn (crash or power cut).
        case truncated
        /// Bytes that are no intact record (bad CRC, no marker, impossible length), skipped up to the
        /// next intact record.
        case corrupted
        /// The header is cut short or fails its CRC; nothing in the file can be trusted.
        case damagedHeader
    }

    public var kind: Kind
    /// The file, as given to the reader.
    public var file: String
    /// Byte offset of the damage within the file.
    public var offset: Int
    /// How many bytes were skipped.
    public var length: Int
    /// What was wrong, for people.
    public var detail: String

    public var description: String {
        switch kind {
        case .truncated: "\(file): offset \(offset): truncated record (\(length) bytes at the end, \(detail)), skipped"
        case .corrupted: "\(file): offset \(offset): \(length) corrupted bytes skipped (\(detail))"
        case .damagedHeader: "\(file): damaged header (\(detail)), file skipped"
        }
    }
}
