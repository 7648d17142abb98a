#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Resolves a configured device path to the device node it names, following every symlink.
///
/// libserialport 0.1.1 looks the name up under `/sys/class/tty/` and so rejects links such as
/// `/dev/serial/by-id/usb-Nordic_…-if00` or a udev `SYMLINK+="uwb-…"` (fixed upstream only after
/// 0.1.1). The factory also needs the real node to tell a pseudo-terminal (`/dev/pts/N`) apart.
func resolveDevicePath(_ path: String) throws(TransportError) -> String {
    guard !path.isEmpty else { throw .invalidAddress("device port is empty (use auto, a device path or tcp://host:port)") }
    guard let resolved = realpath(path, nil) else {
        let code = errno
        var status = stat()
        if code == ENOENT, lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK {
            throw .notFound("\(path): the link points to a device that does not exist (unplugged?)")
        }
        throw openError(path: path, errno: code)
    }
    defer { free(resolved) }
    return String(cString: resolved)
}

/// Whether a resolved device path is a pseudo-terminal slave, which only `TerminalTransport` can open.
func isPseudoTerminalSlave(_ resolvedPath: String) -> Bool {
    resolvedPath.hasPrefix("/dev/pts/")
}
