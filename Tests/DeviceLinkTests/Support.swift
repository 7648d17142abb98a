#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import DeviceLink
import Testing

/// Reads from `transport` until `count` bytes arrived or `within` passed: tests wait for the bytes
/// they expect, never for a fixed time.
func readExactly(_ count: Int, from transport: any ByteTransport, within: Duration = .seconds(5)) throws -> [UInt8] {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: within)
    var bytes: [UInt8] = []
    while bytes.count < count {
        let left = clock.now.duration(to: deadline)
        if left <= .zero { break }
        bytes += try transport.read(maximum: count - bytes.count, timeout: left)
    }
    return bytes
}

/// Runs `body` and returns how long it took.
func elapsed<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let value = try body()
    return (value, start.duration(to: clock.now))
}

/// Runs `body` and returns the `TransportError` it threw, or nil. (Closures do not infer typed
/// throws yet, so this takes `any Error` and records any other error as a test issue.)
func transportError<T>(_ body: () throws -> T) -> TransportError? {
    do {
        _ = try body()
        return nil
    } catch let error as TransportError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// A fresh private directory under /tmp, removed (with its entries) by `remove()`.
struct TemporaryDirectory: ~Copyable {
    let path: String

    init() throws {
        var template = Array("/tmp/devicelink-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp: errno \(errno)") }
        path = String(cString: made)
    }

    deinit {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                if name != "." && name != ".." { _ = unlink(path + "/" + name) }
            }
            closedir(dir)
        }
        _ = rmdir(path)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
