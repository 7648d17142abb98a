/// Why a recording cannot be written or read at all (as opposed to a ``RecordingProblem``, which is
/// damage inside a file that the reader steps over).
public enum RecordingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A system call failed: what was being done, the path, and `errno`'s text.
    case system(operation: String, path: String, errno: Int32, message: String)
    /// The file exists and is not a recording; the writer never overwrites it.
    case notARecording(path: String)
    /// A recording of a format version this code does not read.
    case unsupportedVersion(path: String, version: UInt16)
    /// A packet the format cannot hold (empty, or longer than a UCI packet can be).
    case invalidPacket(length: Int)
    /// Metadata longer than the format allows.
    case metadataTooLong(length: Int)
    /// The writer was used after `close()`.
    case closed(path: String)

    public var description: String {
        switch self {
        case let .system(operation, path, _, message): "cannot \(operation) \(path): \(message)"
        case let .notARecording(path): "\(path) is not a uwb2mqtt recording (no UWBREC1 header)"
        case let .unsupportedVersion(path, version): "\(path) is a recording of format version \(version); this agent reads version \(RecordingFormat.version)"
        case let .invalidPacket(length): "a recorded packet must be 1 to \(RecordingFormat.maximumPacketLength) bytes, got \(length)"
        case let .metadataTooLong(length): "recording metadata must be at most \(RecordingFormat.maximumMetadataLength) bytes, got \(length)"
        case let .closed(path): "the recording \(path) is already closed"
        }
    }
}
