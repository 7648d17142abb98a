#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file system calls recording needs, with failures as ``RecordingError`` values.
///
/// Plain file descriptors rather than `FileHandle`: the writer's crash guarantees rest on exactly
/// one `write(2)` per record on an `O_APPEND` descriptor and on `fdatasync(2)`, which Foundation
/// neither promises nor exposes.
enum POSIXFile {
    static func failure(_ operation: String, _ path: String, _ code: Int32 = errno) -> RecordingError {
        .system(operation: operation, path: path, errno: code, message: String(cString: strerror(code)))
    }

    static func openForAppend(_ path: String) throws(RecordingError) -> Int32 {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("open", path) }
        return fd
    }

    static func openForReading(_ path: String) throws(RecordingError) -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        return fd
    }

    static func size(of fd: Int32, _ path: String) throws(RecordingError) -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("stat", path) }
        return Int(info.st_size)
    }

    /// Writes all of `bytes`. On a regular file one `write(2)` writes everything unless the disk is
    /// full or a signal interrupts it; the loop finishes such a short write rather than leaving it.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ path: String) throws(RecordingError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("write", path)
            }
            done += n
        }
    }

    static func dataSync(_ fd: Int32, _ path: String) throws(RecordingError) {
        guard fdatasync(fd) == 0 else { throw failure("sync", path) }
    }

    /// Makes a create or rename durable: the directory entry is data of the directory.
    static func syncDirectory(of path: String) {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = close(fd)
    }

    static func truncate(_ fd: Int32, _ path: String) throws(RecordingError) {
        guard ftruncate(fd, 0) == 0 else { throw failure("truncate", path) }
    }

    /// Renames, treating a missing source as nothing to do (rotation shifts files that may not exist).
    static func renameIfPresent(_ from: String, to: String) throws(RecordingError) {
        guard rename(from, to) == 0 || errno == ENOENT else { throw failure("rename", from) }
    }

    static func removeIfPresent(_ path: String) throws(RecordingError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure("remove", path) }
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Closes a descriptor (named apart from `close()` methods that would shadow the libc call).
    static func closeDescriptor(_ fd: Int32) { _ = close(fd) }

    /// The first `limit` bytes of a file (all of it when `limit` is nil).
    static func readFile(_ path: String, limit: Int? = nil) throws(RecordingError) -> [UInt8] {
        let fd = try openForReading(path)
        defer { _ = close(fd) }
        let size = try Self.size(of: fd, path)
        let wanted = min(size, limit ?? size)
        var bytes = [UInt8](repeating: 0, count: wanted)
        var done = 0
        while done < wanted {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, wanted - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("read", path)
            }
            if n == 0 { break }
            done += n
        }
        return done == wanted ? bytes : Array(bytes[0..<done])
    }
}
