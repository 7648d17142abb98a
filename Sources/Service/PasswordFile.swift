#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The MQTT password, read from the file `mqtt.password_file` names (cli-and-config.md).
///
/// Why a file and not a config key: the config is world-readable in practice (examples get pasted
/// into tickets, `check` prints from it), the password must not be. The file is read once, through
/// one descriptor, so the mode that is checked is the mode of the bytes that were read.
///
/// Nothing here ever puts the password into an error or a warning: messages name the path, the
/// mode and the fix, never the content.
public enum PasswordFile {
    /// Larger than any sane password; a bigger file is almost certainly the wrong file (a
    /// certificate, a log), and reading it whole would be pointless.
    static let maximumSize = 4096

    /// Reads the password: the file's bytes as UTF-8, with one trailing newline (`\n` or `\r\n`,
    /// what `echo` and editors add) removed.
    ///
    /// - Returns: the password, and a warning (not an error, so that a working setup keeps
    ///   working) when the file is readable by every user (`mode & 0o004`).
    /// - Throws: `ConfigurationError` when the file is missing, unreadable, not a regular file,
    ///   too large, not UTF-8, empty, or contains a NUL byte or a line break inside the password.
    /// `noun` names the file in messages (`MQTT password file`, `HTTP password file`).
    public static func read(path: String, noun: String = "MQTT password file") throws(ConfigurationError) -> (password: String, warning: String?) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR:
                throw ConfigurationError("cannot read the \(noun) \(path): no such file")
            case EACCES, EPERM:
                throw ConfigurationError("cannot read the \(noun) \(path): permission denied for user \(currentUserName()) (the service runs as uwb2mqtt: chown root:uwb2mqtt and chmod 0640 it)")
            default:
                throw ConfigurationError("cannot read the \(noun) \(path): \(String(cString: strerror(code)))")
            }
        }
        defer { close(descriptor) }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw ConfigurationError("cannot read the \(noun) \(path): \(String(cString: strerror(errno)))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw ConfigurationError("the \(noun) \(path) is not a regular file")
        }
        guard status.st_size <= maximumSize else {
            throw ConfigurationError("the \(noun) \(path) is \(status.st_size) bytes; a password file holds only the password")
        }

        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while bytes.count <= maximumSize {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ConfigurationError("cannot read the \(noun) \(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        // The buffer held the password; do not leave it lying around longer than needed.
        for index in buffer.indices { buffer[index] = 0 }
        guard bytes.count <= maximumSize else {
            throw ConfigurationError("the \(noun) \(path) is larger than \(maximumSize) bytes; a password file holds only the password")
        }

        if bytes.last == 0x0A {
            bytes.removeLast()
            if bytes.last == 0x0D { bytes.removeLast() }
        }
        guard !bytes.isEmpty else {
            throw ConfigurationError("the \(noun) \(path) is empty")
        }
        guard !bytes.contains(0) else {
            throw ConfigurationError("the \(noun) \(path) contains a NUL byte")
        }
        guard !bytes.contains(0x0A), !bytes.contains(0x0D) else {
            throw ConfigurationError("the \(noun) \(path) has more than one line; it must hold only the password (one trailing newline is allowed)")
        }
        guard let password = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError("the \(noun) \(path) is not UTF-8 text")
        }

        var warning: String?
        let mode = status.st_mode & 0o777
        if mode & 0o004 != 0 {
            warning = "the \(noun) \(path) is readable by every user (mode \(octal(mode))); run: chmod 0640 \(path)"
        }
        return (password, warning)
    }

    package static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// The effective user's name (for messages that tell the operator who lacked a permission).
package func currentUserName() -> String {
    let uid = geteuid()
    if let entry = getpwuid(uid), let name = entry.pointee.pw_name {
        return String(cString: name)
    }
    return "uid \(uid)"
}
