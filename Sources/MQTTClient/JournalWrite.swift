#if canImport(Glibc)
import Glibc
#endif

/// The journal's write primitives.
enum JournalWrite {
    /// Writes all of `bytes`, retrying short writes and EINTR.
    static func all(_ fd: Int32, _ bytes: [UInt8], _ path: String) throws(Spool.SpoolError) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += n
        }
    }

    /// Makes a created, renamed or deleted name in `directory` survive a power cut.
    static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { _ = fsync(fd); close(fd) }
    }
}
