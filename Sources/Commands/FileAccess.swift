#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Gateway

/// Whether a file the configuration names can be read by this process.
enum FileAccess: Equatable {
    case readable
    case missing
    /// Something else than a regular file is there: what it is, in words (`a directory`).
    case notAFile(String)
    case unreadable(String)

    static func check(_ path: String) -> FileAccess {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            return code == ENOENT || code == ENOTDIR ? .missing : .unreadable(String(cString: strerror(code)))
        }
        if (status.st_mode & S_IFMT) != S_IFREG { return .notAFile(FileSystem.kind(of: status.st_mode)) }
        guard access(path, R_OK) == 0 else { return .unreadable(String(cString: strerror(errno))) }
        return .readable
    }
}
