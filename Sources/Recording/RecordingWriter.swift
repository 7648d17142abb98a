#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends received UCI packets to a recording file (RecordingFormat), with size-based rotation.
///
/// Crash behaviour, which is why it is built this way:
/// - each record is one `write(2)` on an `O_APPEND` descriptor, so a crash of the process loses
///   nothing it had appended, and a torn write can only ever be the last record;
/// - `fdatasync(2)` follows ``SyncPolicy`` (default every 16 records or 1 s), bounding what a power
///   cut loses; ``sync()`` and ``close()`` force it. The writer has no clock and no thread: the
///   1 s is measured on the records' receive times, so a caller that wants idle periods synced
///   calls ``sync()`` from its own timer;
/// - an existing recording at `path` is appended to (restarting the agent continues the capture);
///   a file that is not a recording is never touched; a file whose header was torn (power cut during
///   creation: nothing in it can be replayed) is started afresh.
///
/// Not `Sendable`: one owner (the agent loop or the `record` command) appends to it.
public final class RecordingWriter {
    public let path: String
    public let rotation: RotationPolicy
    public let syncPolicy: SyncPolicy
    /// The header of the file being written.
    public private(set) var header: RecordingHeader
    /// Size of the file being written, in bytes.
    public private(set) var fileSize: Int
    /// Records appended through this writer (all files).
    public private(set) var recordCount = 0

    private var fd: Int32
    private var headerLength: Int
    private var unsynced = 0
    private var lastSyncTime: Int64

    /// Opens `path` for appending, creating it with a header (`startTime`, µs since the epoch, and
    /// `metadata`) when it does not exist.
    public init(path: String, startTime: Int64, metadata: String = "", rotation: RotationPolicy = .none,
                sync: SyncPolicy = .default) throws(RecordingError) {
        let metaLength = metadata.utf8.count
        guard metaLength <= RecordingFormat.maximumMetadataLength else { throw .metadataTooLong(length: metaLength) }
        self.path = path
        self.rotation = rotation
        self.syncPolicy = sync
        self.lastSyncTime = startTime
        let fd = try POSIXFile.openForAppend(path)
        do {
            let size = try POSIXFile.size(of: fd, path)
            if size > 0, let existing = try Self.existingHeader(path) {
                header = existing.header
                headerLength = existing.length
                fileSize = size
            } else {
                if size > 0 { try POSIXFile.truncate(fd, path) }
                header = RecordingHeader(startTime: startTime, segment: Self.nextSegment(after: path), metadata: metadata)
                let bytes = header.encoded()
                try POSIXFile.writeAll(fd, bytes, path)
                try POSIXFile.dataSync(fd, path)
                POSIXFile.syncDirectory(of: path)
                headerLength = bytes.count
                fileSize = bytes.count
            }
        } catch {
            POSIXFile.closeDescriptor(fd)
            throw error
        }
        self.fd = fd
    }

    deinit {
        if fd >= 0 {
            _ = fdatasync(fd)
            POSIXFile.closeDescriptor(fd)
        }
    }

    /// Appends one packet received at `receivedAt` (µs since the epoch), rotating first when the
    /// record would take the file past ``RotationPolicy/maxBytes``.
    public func append(_ packet: [UInt8], receivedAt: Int64, flags: RecordFlags = []) throws(RecordingError) {
        guard fd >= 0 else { throw .closed(path: path) }
        guard (1...RecordingFormat.maximumPacketLength).contains(packet.count) else { throw .invalidPacket(length: packet.count) }
        var record = RecordCodec.encode(packet, receiveTime: receivedAt, startTime: header.startTime, flags: flags)
        if fileSize > headerLength, fileSize + record.count > rotation.maxBytes {
            try rotate(startTime: receivedAt)
            record = RecordCodec.encode(packet, receiveTime: receivedAt, startTime: header.startTime, flags: flags)
        }
        try POSIXFile.writeAll(fd, record, path)
        fileSize += record.count
        recordCount += 1
        unsynced += 1
        if unsynced >= syncPolicy.records || Double(receivedAt &- lastSyncTime) / 1_000_000 >= syncPolicy.interval {
            try sync()
            lastSyncTime = receivedAt
        }
    }

    /// Forces everything appended so far to stable storage.
    public func sync() throws(RecordingError) {
        guard fd >= 0 else { throw .closed(path: path) }
        guard unsynced > 0 else { return }
        try POSIXFile.dataSync(fd, path)
        unsynced = 0
    }

    /// Syncs and closes the file; later appends throw ``RecordingError/closed(path:)``.
    public func close() throws(RecordingError) {
        guard fd >= 0 else { return }
        let result = fdatasync(fd)
        let code = errno
        POSIXFile.closeDescriptor(fd)
        fd = -1
        if result != 0 { throw POSIXFile.failure("sync", path, code) }
    }

    /// Shifts `path` → `path.1` → … (dropping the oldest) and starts a new file, segment + 1.
    private func rotate(startTime: Int64) throws(RecordingError) {
        try close()
        if rotation.maxFiles <= 1 {
            try POSIXFile.removeIfPresent(path)
        } else {
            try POSIXFile.removeIfPresent(RotationPolicy.path(path, index: rotation.maxFiles - 1))
            for index in stride(from: rotation.maxFiles - 2, through: 0, by: -1) {
                try POSIXFile.renameIfPresent(RotationPolicy.path(path, index: index), to: RotationPolicy.path(path, index: index + 1))
            }
        }
        let next = RecordingHeader(startTime: startTime, segment: header.segment &+ 1, metadata: header.metadata)
        let fd = try POSIXFile.openForAppend(path)
        let bytes = next.encoded()
        do {
            try POSIXFile.writeAll(fd, bytes, path)
            try POSIXFile.dataSync(fd, path)
        } catch {
            POSIXFile.closeDescriptor(fd)
            throw error
        }
        POSIXFile.syncDirectory(of: path)
        self.fd = fd
        header = next
        headerLength = bytes.count
        fileSize = bytes.count
        unsynced = 0
        lastSyncTime = startTime
    }

    /// The header of an existing non-empty file: nil when the header is torn (start afresh),
    /// an error when the file is no recording or of another version (never overwrite it).
    private static func existingHeader(_ path: String) throws(RecordingError) -> (header: RecordingHeader, length: Int)? {
        let bytes = try POSIXFile.readFile(path, limit: RecordingFormat.headerFixedLength + RecordingFormat.maximumMetadataLength)
        switch RecordingHeader.decode(bytes) {
        case let .header(header, length): return (header, length)
        case .notARecording: throw .notARecording(path: path)
        case let .unsupportedVersion(version): throw .unsupportedVersion(path: path, version: version)
        case .damaged: return nil
        }
    }

    /// The segment for a new `path`: one after `path.1`'s, so that a set whose newest file was lost
    /// in a crash between rotation's rename and create still sorts in order.
    private static func nextSegment(after path: String) -> UInt32 {
        guard let bytes = try? POSIXFile.readFile(RotationPolicy.path(path, index: 1), limit: RecordingFormat.headerFixedLength + RecordingFormat.maximumMetadataLength),
              case let .header(previous, _) = RecordingHeader.decode(bytes) else { return 0 }
        return previous.segment &+ 1
    }
}
