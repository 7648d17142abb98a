#if canImport(Glibc)
import Glibc
#endif

/// One line of input, or the size of one too long to be kept.
public enum InputLine: Equatable, Sendable {
    case text(String)
    /// A line over the limit: skipped without being held in memory.
    case tooLong(bytes: Int)
}

/// Reads lines from a file descriptor in fixed chunks, keeping at most `limit` bytes of a line:
/// a longer one is skipped as it streams past and reported by its size, so that no input can
/// make `decode` hold more than a chunk and a line.
struct BoundedLineReader {
    let fd: Int32
    let limit: Int
    private var buffer: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 65_536)
    private var chunkStart = 0
    private var chunkEnd = 0
    private var ended = false

    init(fd: Int32 = STDIN_FILENO, limit: Int = 1 << 20) {
        self.fd = fd
        self.limit = limit
    }

    mutating func next() -> InputLine? {
        var skipped = 0
        while true {
            if chunkStart == chunkEnd {
                guard !ended, refill() else {
                    ended = true
                    defer { buffer.removeAll(keepingCapacity: true) }
                    if skipped > 0 { return .tooLong(bytes: skipped + buffer.count) }
                    return buffer.isEmpty ? nil : .text(String(decoding: buffer, as: UTF8.self))
                }
            }
            let newline = chunk[chunkStart..<chunkEnd].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? chunkEnd
            let piece = chunk[chunkStart..<end]
            chunkStart = newline.map { $0 + 1 } ?? chunkEnd
            if skipped > 0 || buffer.count + piece.count > limit {
                skipped += buffer.count + piece.count
                buffer.removeAll(keepingCapacity: true)
            } else {
                buffer.append(contentsOf: piece)
            }
            guard newline != nil else { continue }
            defer { buffer.removeAll(keepingCapacity: true) }
            if skipped > 0 { return .tooLong(bytes: skipped) }
            return .text(String(decoding: buffer, as: UTF8.self))
        }
    }

    private mutating func refill() -> Bool {
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            chunkStart = 0
            chunkEnd = count
            return true
        }
    }
}
