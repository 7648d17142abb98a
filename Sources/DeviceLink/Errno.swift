#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The C library's text for an errno value ("No such file or directory"), thread-safe.
///
/// Uses `strerror_r` (the XSI form, which is what Glibc's module exports) into a local buffer,
/// since `strerror` shares one static buffer between threads.
func errnoText(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    let result = strerror_r(code, &buffer, buffer.count)
    guard result == 0 else { return "error \(code)" }
    return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Maps a failed `open()` of a device node to the error the caller acts on, with a hint that
/// says what to do about it.
func openError(path: String, errno code: Int32) -> TransportError {
    switch code {
    case ENOENT, ENODEV, ENXIO:
        return .notFound("\(path): no such device (is the DWM3001C plugged into its J20 USB port? `uwb2mqtt ports` lists serial ports)")
    case EACCES, EPERM:
        return .permissionDenied("\(path): permission denied (add the user to the `dialout` group: `sudo usermod -aG dialout $USER`, then log in again, or install the udev rule)")
    case EBUSY:
        return .busy("\(path): device is in use by another process (another uwb2mqtt, ModemManager, a terminal program?)")
    default:
        return .io("\(path): cannot open: \(errnoText(code))")
    }
}

/// Whether an errno from read/write/poll on an open device means the device is gone rather than a
/// transient fault: a tty hangup shows as EIO (and ENXIO/ENODEV while USB tears down), a TCP peer as
/// ECONNRESET/EPIPE/ENOTCONN, or ETIMEDOUT from keep-alive.
func meansDisconnected(_ code: Int32) -> Bool {
    switch code {
    case EIO, ENXIO, ENODEV, ECONNRESET, EPIPE, ENOTCONN, ETIMEDOUT, ESHUTDOWN, ECONNABORTED, EHOSTUNREACH, ENETDOWN, ENETUNREACH:
        return true
    default:
        return false
    }
}
