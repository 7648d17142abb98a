#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Foundation

/// A fresh directory under the system temporary directory, removed with everything in it when the
/// owner is released, so a failing test leaves no config files, keys or logs behind.
public final class TemporaryDirectory: Sendable {
    public let path: String

    /// Creates `<tmp>/<prefix>-XXXXXX` with `mkdtemp` (mode 0700: keys and password files live here).
    public init(prefix: String) throws(TestSupportError) {
        let base = FileManager.default.temporaryDirectory.path
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .system(call: "mkdtemp", errno: errno)
        }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/name`.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Writes `text` to `path/name` and returns the full path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws(TestSupportError) -> String {
        let target = file(name)
        do {
            try text.write(toFile: target, atomically: true, encoding: .utf8)
        } catch {
            throw .system(call: "write \(target)", errno: EIO)
        }
        return target
    }
}

/// The text of a file, or "" when it does not exist (yet): logs and subscriber output are read
/// while their writer runs.
func readText(_ path: String) -> String {
    guard let data = FileManager.default.contents(atPath: path) else { return "" }
    return String(decoding: data, as: UTF8.self)
}

/// The bytes of a file from `offset` to its current end, or none when it does not exist (yet).
func readBytes(_ path: String, from offset: Int64) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return [] }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var position = off_t(offset)
    while true {
        let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, position) }
        guard count > 0 else { return bytes }
        bytes += chunk[..<count]
        position += off_t(count)
    }
}
