import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// File-system facts the commands share.
package enum FileSystem {
    /// The directory for temporary files, with a trailing slash: $TMPDIR, else /tmp/.
    package static var temporaryDirectory: String {
        let path = FileManager.default.temporaryDirectory.path
        return path.hasSuffix("/") ? path : path + "/"
    }

    /// The largest config, rules or scenario file read: far above any real one (the example rules
    /// are 4 KiB), far below what would stall the agent's loop while it is parsed.
    package static let maximumTextFileBytes = 1 << 20

    /// The bytes of a regular file of at most `limit` bytes, or why not, in words that say what
    /// the path really is (`no such file`, `a directory`, `a FIFO`, `permission denied`, …).
    package static func readTextFile(at path: String, limit: Int = maximumTextFileBytes) -> Result<[UInt8], FileReadError> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(FileReadError(errno: errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(FileReadError(reason: "it is \(kind(of: info.st_mode)), not a file")) }
        guard Int(info.st_size) <= limit else {
            return .failure(FileReadError(reason: "it is \(info.st_size) bytes; the limit is \(limit) bytes"))
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(FileReadError(errno: errno)) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(FileReadError(errno: errno))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            // It grew after stat: still bounded.
            if bytes.count > limit { return .failure(FileReadError(reason: "it is over \(limit) bytes; the limit is \(limit) bytes")) }
        }
        return .success(bytes)
    }

    /// What a non-regular file is, in words.
    package static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }
}

/// Why a file could not be read, as the end of a sentence (`cannot read X: <reason>`).
extension FileSystem {
    /// Replaces the file at `path` with `bytes` so that a reader sees the old file or the new one,
    /// never half of either: the old content goes to `backup` first, the new is written to
    /// `<path>.new`, synced and renamed over `path`, and the directory synced. Nil on success,
    /// else what failed (the file at `path` is then as it was).
    package static func replace(_ path: String, with bytes: [UInt8], backup: String) -> String? {
        if case let .success(old) = readTextFile(at: path), let problem = writeAndRename(old, to: backup) {
            return "cannot keep the previous file as \(backup): \(problem)"
        }
        if let problem = writeAndRename(bytes, to: path) { return problem }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let fd = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
        return nil
    }

    /// Writes `bytes` to `<path>.new`, syncs it and renames it to `path`.
    private static func writeAndRename(_ bytes: [UInt8], to path: String) -> String? {
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { return "\(temporary): \(FileReadError(errno: errno))" }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let problem = FileReadError(errno: errno)
                close(fd)
                unlink(temporary)
                return "\(temporary): \(problem)"
            }
            written += count
        }
        let synced = fsync(fd) == 0
        let code = errno
        close(fd)
        guard synced, rename(temporary, path) == 0 else {
            let problem = FileReadError(errno: synced ? errno : code)
            unlink(temporary)
            return "\(path): \(problem)"
        }
        return nil
    }
}

package struct FileReadError: Error, CustomStringConvertible, Sendable {
    package let reason: String
    /// True when nothing is at the path.
    package let missing: Bool

    init(reason: String) {
        self.reason = reason
        missing = false
    }

    init(errno code: Int32) {
        missing = code == ENOENT
        reason = switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied"
        default: String(cString: strerror(code))
        }
    }

    package var description: String { reason }
}
