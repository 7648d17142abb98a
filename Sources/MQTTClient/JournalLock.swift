#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on `<spool_dir>/lock`, held while the journal is open, so that a second
/// agent on the same spool directory is refused instead of interleaving its records and read
/// pointer with the first one's. The lock file holds the owner's PID, for the refusal message.
/// The kernel releases the lock when the process ends, however it ends.
final class JournalLock {
    private let fd: Int32

    /// The descriptor is kept in a local until the lock is held: a class whose stored properties
    /// are all set runs its `deinit` when its initializer throws, which would close it a second
    /// time — by then possibly a file another thread just opened under the same number.
    init(directory: String) throws(Spool.SpoolError) {
        let path = directory + "/lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            var bytes = [UInt8](repeating: 0, count: 32)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, 32, 0) }
            Glibc.close(fd)
            if busy {
                let owner = n > 0 ? Int32(String(decoding: bytes[0..<n], as: UTF8.self).split(separator: "\n").first ?? "") : nil
                throw .locked(directory: directory, owner: owner)
            }
            throw .io("cannot lock \(path): \(reason)")
        }
        self.fd = fd
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
    }

    deinit { Glibc.close(fd) }
}
