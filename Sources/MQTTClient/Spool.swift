#if canImport(Glibc)
import Glibc
#endif

/// A message waiting for the broker: what `Spool` keeps on disk.
public struct SpooledMessage: Hashable, Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool
    /// Position in the journal, assigned by `Spool.append` (and on load): what a delivery
    /// acknowledges, so that messages dropped or added meanwhile cannot shift the accounting.
    public internal(set) var sequence: UInt64 = 0

    public init(topic: String, payload: [UInt8], qos: Int, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// Bytes this message takes in the journal.
    var recordSize: Int { Spool.recordOverhead + topic.utf8.count + payload.count }
}

/// The store-and-forward journal (mqtt-api.md, "Delivery promises"): events and retained state
/// that cannot be published while the broker is unreachable are appended here, fsync'd, and
/// published in order once it is back — also after an agent restart.
///
/// One file, `journal`, of records `length(4) qos(1) retain(1) topic_length(2) topic payload
/// crc32(4)` (little-endian). A crash or power cut can only cut the last record short; it is
/// dropped on load and everything before it is kept. Every message is kept and delivered in
/// order; only when `maximumBytes` would be exceeded are messages dropped: first retained
/// messages superseded by a newer one for the same topic (a late joiner only sees the newest),
/// then the oldest. `dropped` counts them. Single-owner: the agent loop is its only user.
public struct Spool: Sendable {
    public enum SpoolError: Error, CustomStringConvertible, Equatable {
        case io(String)
        public var description: String { switch self { case let .io(text): text } }
    }

    static let recordOverhead = 4 + 1 + 1 + 2 + 4

    public let directory: String
    public let maximumBytes: Int
    public private(set) var messages: [SpooledMessage] = []
    public private(set) var bytes = 0
    /// Messages dropped to stay within `maximumBytes` since start.
    public private(set) var dropped = 0
    /// What loading found wrong (a truncated or corrupt tail), for a log line.
    public private(set) var recoveryNote: String?

    private var path: String { directory + "/journal" }
    private var nextSequence: UInt64 = 1

    /// Opens (creating the directory if needed) and loads what a previous run left.
    public init(directory: String, maximumBytes: Int) throws(SpoolError) {
        self.directory = directory
        self.maximumBytes = max(maximumBytes, 1024)
        if mkdir(directory, 0o750) != 0 && errno != EEXIST {
            throw .io("cannot create spool directory \(directory): \(String(cString: strerror(errno)))")
        }
        let data = try Self.readFile(path)
        var offset = 0
        while offset < data.count {
            guard let (message, size) = Self.decodeRecord(data, at: offset) else {
                recoveryNote = "spool journal: dropped \(data.count - offset) unreadable bytes at its end (interrupted write)"
                break
            }
            var numbered = message
            numbered.sequence = nextSequence
            nextSequence += 1
            messages.append(numbered)
            bytes += size
            offset += size
        }
        if recoveryNote != nil { try rewrite() }
    }

    public var isEmpty: Bool { messages.isEmpty }
    public var count: Int { messages.count }

    /// Appends and fsyncs one message, first making room if the bound requires it. Returns its
    /// sequence number. When the file cannot be written (a full disk) it throws, and the message
    /// stays queued in memory only: it is still delivered unless the process dies first.
    @discardableResult
    public mutating func append(_ message: SpooledMessage) throws(SpoolError) -> UInt64 {
        var message = message
        message.sequence = nextSequence
        nextSequence += 1
        guard message.recordSize <= maximumBytes else {
            dropped += 1
            return message.sequence
        }
        var needsRewrite = false
        if bytes + message.recordSize > maximumBytes {
            // Superseded retained state goes first: only the newest per topic matters to a late joiner.
            var newestRetained: [String: Int] = [:]
            for (index, m) in messages.enumerated() where m.retain { newestRetained[m.topic] = index }
            if message.retain { newestRetained[message.topic] = messages.count }
            var kept: [SpooledMessage] = []
            for (index, m) in messages.enumerated() {
                if bytes + message.recordSize > maximumBytes, m.retain, newestRetained[m.topic] != index {
                    bytes -= m.recordSize
                    dropped += 1
                    needsRewrite = true
                } else {
                    kept.append(m)
                }
            }
            messages = kept
        }
        while bytes + message.recordSize > maximumBytes, !messages.isEmpty {
            bytes -= messages.removeFirst().recordSize
            dropped += 1
            needsRewrite = true
        }
        messages.append(message)
        bytes += message.recordSize
        if needsRewrite {
            try rewrite()
        } else {
            try appendToFile(Self.encodeRecord(message))
        }
        return message.sequence
    }

    /// Forgets delivered messages by sequence number (those already dropped are ignored).
    public mutating func remove(sequences: Set<UInt64>) throws(SpoolError) {
        let before = messages.count
        messages.removeAll { message in
            guard sequences.contains(message.sequence) else { return false }
            bytes -= message.recordSize
            return true
        }
        if messages.count != before { try rewrite() }
    }

    /// Forgets the first `count` messages once they were delivered.
    public mutating func removeFirst(_ count: Int) throws(SpoolError) {
        let n = min(count, messages.count)
        guard n > 0 else { return }
        for message in messages.prefix(n) { bytes -= message.recordSize }
        messages.removeFirst(n)
        try rewrite()
    }

    // MARK: file I/O

    /// Appends one record. A write that fails part-way (a full disk) is cut back off, so that the
    /// records appended after it are not hidden behind a torn one (load stops at the first).
    private func appendToFile(_ record: [UInt8]) throws(SpoolError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let end = lseek(fd, 0, SEEK_END)
        do {
            try Self.writeAll(fd, record, path)
        } catch {
            if end >= 0 { _ = ftruncate(fd, end) }
            throw error
        }
        guard fsync(fd) == 0 else { throw .io("cannot fsync \(path): \(String(cString: strerror(errno)))") }
    }

    /// Replaces the journal atomically: a temporary file, fsync, rename, fsync of the directory.
    /// An empty journal is truncated in place instead, which needs no free space: after a full
    /// disk, delivering everything is what frees it.
    private func rewrite() throws(SpoolError) {
        if messages.isEmpty {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
            guard fd >= 0 else { throw .io("cannot truncate \(path): \(String(cString: strerror(errno)))") }
            _ = fsync(fd)
            close(fd)
            return
        }
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw .io("cannot open \(temporary): \(String(cString: strerror(errno)))") }
        var all: [UInt8] = []
        all.reserveCapacity(bytes)
        for message in messages { all += Self.encodeRecord(message) }
        do {
            try Self.writeAll(fd, all, temporary)
        } catch {
            close(fd)
            unlink(temporary)  // a half-written copy would only take more of a full disk
            throw error
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .io("cannot replace \(path): \(reason)")
        }
        let dir = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 { _ = fsync(dir); close(dir) }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ path: String) throws(SpoolError) {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += n
        }
    }

    private static func readFile(_ path: String) throws(SpoolError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return [] }
            throw .io("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 65536) }
            if n < 0 { if errno == EINTR { continue }; throw .io("cannot read \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            data += chunk[0..<n]
        }
        return data
    }

    // MARK: records

    static func encodeRecord(_ message: SpooledMessage) -> [UInt8] {
        let topic = Array(message.topic.utf8)
        var body: [UInt8] = [UInt8(truncatingIfNeeded: message.qos), message.retain ? 1 : 0,
                             UInt8(truncatingIfNeeded: topic.count), UInt8(truncatingIfNeeded: topic.count >> 8)]
        body += topic
        body += message.payload
        var record = le32(UInt32(body.count))
        record += body
        record += le32(CRC32.checksum(body))
        return record
    }

    static func decodeRecord(_ data: [UInt8], at offset: Int) -> (SpooledMessage, Int)? {
        guard data.count - offset >= recordOverhead else { return nil }
        let length = Int(readLE32(data, offset))
        guard length >= 4, data.count - offset >= 8 + length else { return nil }
        let body = Array(data[(offset + 4)..<(offset + 4 + length)])
        guard readLE32(data, offset + 4 + length) == CRC32.checksum(body) else { return nil }
        let topicLength = Int(body[2]) | Int(body[3]) << 8
        guard 4 + topicLength <= body.count else { return nil }
        let topic = String(decoding: body[4..<(4 + topicLength)], as: UTF8.self)
        let message = SpooledMessage(topic: topic, payload: Array(body[(4 + topicLength)...]), qos: Int(body[0]), retain: body[1] != 0)
        return (message, 8 + length)
    }

    private static func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
    private static func readLE32(_ d: [UInt8], _ o: Int) -> UInt32 {
        UInt32(d[o]) | UInt32(d[o + 1]) << 8 | UInt32(d[o + 2]) << 16 | UInt32(d[o + 3]) << 24
    }
}

/// CRC-32 (IEEE 802.3), to tell a torn journal record from a whole one.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
