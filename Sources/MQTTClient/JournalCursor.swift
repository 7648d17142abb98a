#if canImport(Glibc)
import Glibc
#endif
import Vocabulary

/// The journal's read pointer: the sequence number of the first record not yet delivered, in the
/// file `cursor` (`"UWBC"(4) sequence(8) crc32(4)`, little-endian), overwritten in place.
///
/// Not fsync'd: after a power cut it may point a little behind, and what was delivered in the
/// last seconds is delivered again (QoS 1 is at least once anyway). Syncing it would cost a disk
/// flush per delivered batch.
struct JournalCursor {
    let path: String
    private let fd: Int32
    /// The sequence number stored, nil if there was none or it could not be read.
    let stored: UInt64?
    /// Why a cursor file that exists could not be read.
    let problem: String?

    init(path: String) throws(Spool.SpoolError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
        self.fd = fd
        var bytes = [UInt8](repeating: 0, count: 16)
        let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, 16, 0) }
        if n == 0 {
            stored = nil
            problem = nil
        } else if n == 16, bytes[0..<4].elementsEqual("UWBC".utf8),
                  JournalRecord.readLE(bytes, 12, 4) == UInt64(CRC32.checksum(bytes, 0..<12)) {
            stored = JournalRecord.readLE(bytes, 4, 8)
            problem = nil
        } else {
            stored = nil
            problem = "its read pointer (\(path)) was unreadable"
        }
    }

    func close() { _ = Glibc.close(fd) }

    /// Stores `sequence`; returns the bytes written.
    func write(_ sequence: UInt64) throws(Spool.SpoolError) -> Int {
        var bytes = Array("UWBC".utf8)
        JournalRecord.appendLE(sequence, bytes: 8, to: &bytes)
        JournalRecord.appendLE(UInt64(CRC32.checksum(bytes, 0..<12)), bytes: 4, to: &bytes)
        let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress!, 16, 0) }
        guard n == 16 else { throw .io("cannot write \(path): \(n < 0 ? String(cString: strerror(errno)) : "short write")") }
        return 16
    }
}
