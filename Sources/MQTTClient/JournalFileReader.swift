#if canImport(Glibc)
import Glibc
#endif

/// Reads a journal file at given positions through one buffer, so that scanning a segment and
/// filling the delivery window cost one `pread` per 64 KiB rather than one per record, and
/// memory stays at a chunk (or one record, if larger) whatever the size of the file.
struct JournalFileReader {
    let path: String
    private let fd: Int32
    private(set) var buffer: [UInt8] = []
    /// File offset of `buffer[0]`, and how many bytes of `buffer` hold data.
    private var start = 0
    private var count = 0
    static let chunk = 64 << 10

    init(path: String) throws(Spool.SpoolError) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
    }

    func close() { _ = Glibc.close(fd) }

    /// The file's size now.
    func size() throws(Spool.SpoolError) -> Int {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .io("cannot stat \(path): \(String(cString: strerror(errno)))") }
        return Int(status.st_size)
    }

    /// The record at `offset`, in a file whose first `end` bytes are data.
    mutating func record(at offset: Int, end: Int) throws(Spool.SpoolError) -> JournalRecord.Decoded {
        guard end - offset >= JournalRecord.headerSize else { return .incomplete }
        try load(offset, JournalRecord.headerSize, end: end)
        var index = offset - start
        guard count - index >= JournalRecord.headerSize else { return .incomplete }
        if buffer[index..<(index + 4)].elementsEqual(JournalRecord.magic) {
            let size = JournalRecord.declaredSize(buffer, at: index)
            // A damaged length can claim anything: only what the file holds is read.
            guard size <= end - offset else {
                return size - JournalRecord.headerSize - 4 > JournalRecord.maximumBodySize ? .invalid("impossible record length") : .incomplete
            }
            try load(offset, size, end: end)
            index = offset - start
        }
        return JournalRecord.decode(buffer, at: index, available: min(count, end - start))
    }

    /// The offset of the next record marker at or after `offset`, before `end`.
    mutating func nextMarker(from offset: Int, end: Int) throws(Spool.SpoolError) -> Int? {
        var position = offset
        while end - position >= JournalRecord.magic.count {
            try load(position, min(Self.chunk, end - position), end: end)
            let index = position - start
            let last = min(count, end - start) - JournalRecord.magic.count
            guard last >= index else { return nil }
            var found: Int?
            buffer.withUnsafeBufferPointer { bytes in
                var i = index
                while i <= last {
                    if bytes[i] == 0x55, bytes[i + 1] == 0x57, bytes[i + 2] == 0x42, bytes[i + 3] == 0x4A { found = i; return }
                    i += 1
                }
            }
            if let found { return start + found }
            position = start + last + 1
        }
        return nil
    }

    /// `count` bytes at `offset`, nil when the file (its first `end` bytes) ends before.
    mutating func bytes(at offset: Int, count wanted: Int, end: Int) throws(Spool.SpoolError) -> ArraySlice<UInt8>? {
        guard end - offset >= wanted else { return nil }
        try load(offset, wanted, end: end)
        let index = offset - start
        guard count - index >= wanted else { return nil }
        return buffer[index..<(index + wanted)]
    }

    /// Makes `offset..<offset+length` (within `end`) available in `buffer`, from `offset - start`.
    private mutating func load(_ offset: Int, _ length: Int, end: Int) throws(Spool.SpoolError) {
        if offset >= start, offset + length <= start + count { return }
        let want = min(max(length, Self.chunk), max(end - offset, length))
        if buffer.count < want { buffer = [UInt8](repeating: 0, count: want) }
        var filled = 0
        while filled < want {
            let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, want - filled, off_t(offset + filled)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            filled += n
        }
        start = offset
        count = filled
    }
}
