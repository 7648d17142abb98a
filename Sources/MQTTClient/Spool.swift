#if canImport(Glibc)
import Glibc
#endif

/// The store-and-forward journal (mqtt-api.md, "Delivery promises"): events and retained state
/// that cannot be published while the broker is unreachable are appended here, synced to disk,
/// and published in order once it is back — also after an agent restart.
///
/// On disk, in the spool directory:
/// - `journal-<first sequence, 20 digits>.seg`: append-only segments of records (`JournalRecord`:
///   `"UWBJ" body_length(4) sequence(8) qos(1) flags(1) topic_length(2) topic payload crc32(4)`,
///   little-endian). A segment is closed at about 1/16 of `maximumBytes` (at most 4 MiB) and a
///   new one begun.
/// - `cursor`: the read pointer, the sequence number of the first record not yet delivered
///   (`JournalCursor`).
/// - `lock`: held with `flock` while open (`JournalLock`): a second agent on the same directory
///   is refused.
/// - `*.damaged`: segments in which recovery found damage, kept for inspection; never read.
///
/// Every operation costs what it touches. Appending writes one record and `fdatasync`s it, or
/// leaves the sync to a `JournalSync` off the loop that covers every record written before it.
/// Delivery reads ahead a bounded window (`pending(upTo:)`), and `delivered(through:)` moves the
/// cursor and deletes the segments it has passed: nothing is ever rewritten. Only the window is
/// held in memory, and what could not be written (below).
///
/// The bound: when an append would take the journal (whole segments on disk, and what waits in
/// memory) beyond `maximumBytes`, the oldest segments are deleted, undelivered or not; `dropped`
/// counts the messages lost that way and `takeNotice()` says so once per episode.
///
/// Crash safety: a crash or power cut can only cut the last record short (with a `JournalSync`,
/// a power cut also loses what was written since its last sync completed); loading drops it and
/// keeps everything before it. Any other damage (a flipped bit) costs the records it touches:
/// loading resynchronises on the next valid record, keeps the segment aside as `*.damaged` and
/// says in `recoveryNote` how many records were lost and why (`JournalRecovery`). After a power
/// cut the cursor may be a few seconds behind: those messages are delivered again.
///
/// A write that fails (a full disk) is cut back off, and that message and the ones after it wait
/// in memory, in order, until a segment is freed (delivered or dropped), when they are written
/// again; until then a crash loses them. The `journal` file of earlier versions is migrated into
/// segments on open (`LegacyJournal`).
///
/// Single-owner: the agent loop is its only user.
public final class Spool {
    public enum SpoolError: Error, CustomStringConvertible, Equatable {
        case io(String)
        /// Another process holds the directory's lock.
        case locked(directory: String, owner: Int32?)
        /// A topic longer than MQTT (and the record's 16-bit length) allows: never publishable.
        case topicTooLong(bytes: Int)
        /// A message larger than the whole journal.
        case messageTooLarge(bytes: Int, maximum: Int)

        public var description: String {
            switch self {
            case let .io(text):
                text
            case let .locked(directory, owner):
                "the spool directory \(directory) is in use by another uwb2mqtt agent\(owner.map { " (pid \($0))" } ?? ""), "
                    + "which holds its lock \(directory)/lock; stop that agent or give this one its own mqtt.spool_dir"
            case let .topicTooLong(bytes):
                "a topic of \(bytes) bytes is longer than MQTT allows (\(JournalRecord.maximumTopicBytes))"
            case let .messageTooLarge(bytes, maximum):
                "a message of \(bytes) bytes is larger than the whole journal (\(maximum) bytes)"
            }
        }
    }

    public let directory: String
    public let maximumBytes: Int
    /// Where a segment is closed and the next begun.
    let segmentBytes: Int
    /// Messages not yet delivered.
    public private(set) var count = 0
    /// What the journal takes: its segments on disk and the messages waiting in memory.
    public private(set) var bytes = 0
    /// Messages dropped to stay within `maximumBytes` since start.
    public private(set) var dropped = 0
    /// What loading found wrong (a record cut short, damage, an old journal migrated), for a log line.
    public private(set) var recoveryNote: String?
    /// Bytes this journal wrote to its files since start (records, cursor, recovery copies aside).
    public private(set) var bytesWritten = 0

    private let lock: JournalLock
    private let cursorFile: JournalCursor
    /// The first sequence number not yet delivered.
    private var cursor: UInt64
    private var nextSequence: UInt64
    private var segments: [JournalSegment] = []
    /// The last segment's descriptor while appending to it; whether it has writes not yet synced.
    private var appendFD: Int32 = -1
    private var unsynced = false
    /// Messages that could not be written, oldest first, from `unwrittenHead` on; their sequence
    /// numbers are consecutive.
    private var unwritten: [SpooledMessage] = []
    private var unwrittenHead = 0
    /// The delivery window: undelivered messages read ahead, oldest first, from `windowHead` on.
    private var window: [SpooledMessage] = []
    private var windowHead = 0
    /// Where the next record for the window is read, and the highest sequence number read.
    private var readSegment = 0
    private var readOffset = 0
    private var lastRead: UInt64
    private var reader: (segment: UInt64, file: JournalFileReader)?
    private var scratch: [UInt8] = []
    private var notice: String?
    private var overflowReported = false

    /// Opens the journal in `directory` (creating it if needed), takes its lock and loads what a
    /// previous run left. Throws `.locked` when another agent has it open.
    public init(directory: String, maximumBytes: Int) throws(SpoolError) {
        self.directory = directory
        self.maximumBytes = max(maximumBytes, 1024)
        segmentBytes = min(max(self.maximumBytes / 16, 256), 4 << 20)
        if mkdir(directory, 0o750) != 0 && errno != EEXIST {
            throw .io("cannot create spool directory \(directory): \(String(cString: strerror(errno)))")
        }
        lock = try JournalLock(directory: directory)
        cursorFile = try JournalCursor(path: directory + "/cursor")
        var notes: [String] = []
        if let problem = cursorFile.problem { notes.append("\(problem): delivering the whole journal again") }
        cursor = max(cursorFile.stored ?? 1, 1)
        let recovery = try JournalRecovery(directory: directory, cursor: cursor, names: try Self.segmentNames(directory))
        notes += recovery.notes
        segments = recovery.segments
        readSegment = recovery.readSegment
        readOffset = recovery.readOffset
        count = recovery.pending
        bytes = segments.reduce(0) { $0 + $1.size }
        nextSequence = max(cursor, recovery.lastSequence + 1)
        lastRead = cursor - 1
        if let note = try LegacyJournal.migrate(into: self) { notes.append(note) }
        recoveryNote = notes.isEmpty ? nil : "spool journal: " + notes.joined(separator: "; ")
    }

    deinit {
        if appendFD >= 0 { close(appendFD) }
        reader?.file.close()
        cursorFile.close()
    }

    public var isEmpty: Bool { count == 0 }
    /// Whether every undelivered message is on disk (false after a failed write until the
    /// messages waiting in memory could be written).
    public var isPersisted: Bool { unwrittenHead == unwritten.count }

    /// Something to report once (the bound reached, damage found while reading), then nil.
    public func takeNotice() -> String? {
        defer { notice = nil }
        return notice
    }

    // MARK: appending

    /// Appends one message and syncs it to disk, first deleting the oldest segments if the bound
    /// requires it. Returns its sequence number.
    ///
    /// Refuses a topic longer than 65535 bytes and a message larger than the journal. When the
    /// file cannot be written (a full disk) it throws `.io`, and the message waits in memory: it
    /// is still delivered unless the process dies first. While messages wait in memory, later
    /// ones join them without touching the disk (`isPersisted` is false).
    @discardableResult
    public func append(_ message: SpooledMessage) throws(SpoolError) -> UInt64 {
        try append(message, sync: true)
    }

    /// Appends one message, synced at once or (`sync: false`) left for `syncAppends` or a
    /// `JournalSync` to sync with the others written meanwhile.
    @discardableResult
    public func append(_ message: SpooledMessage, sync: Bool) throws(SpoolError) -> UInt64 {
        let topicBytes = message.topic.utf8.count
        guard topicBytes <= JournalRecord.maximumTopicBytes else { throw .topicTooLong(bytes: topicBytes) }
        let size = message.recordSize
        guard size <= maximumBytes else { throw .messageTooLarge(bytes: size, maximum: maximumBytes) }
        var message = message
        message.sequence = nextSequence
        nextSequence += 1
        var freed = false
        while bytes + size > maximumBytes, dropOldest() { freed = true }
        count += 1
        bytes += size
        if !isPersisted {
            unwritten.append(message)
            if freed { try? writeUnwritten() }
            return message.sequence
        }
        do {
            _ = try writeRun([message][...], sync: sync)
        } catch {
            unwritten.append(message)
            throw error
        }
        return message.sequence
    }

    /// Whether `append(_:sync: false)` wrote records that no sync covers yet.
    public var hasUnsyncedAppends: Bool { unsynced && appendFD >= 0 }

    /// A duplicate of the descriptor appended to, for a sync elsewhere (`JournalSync`): the
    /// records written so far count as covered by it, and the caller syncs and closes it. Nil
    /// when nothing waits for a sync, or no descriptor is left to duplicate.
    public func descriptorToSync() -> Int32? {
        guard hasUnsyncedAppends else { return nil }
        let fd = fcntl(appendFD, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        unsynced = false
        return fd
    }

    /// Syncs what `append(_:sync: false)` wrote, here (blocking).
    public func syncAppends() throws(SpoolError) {
        guard unsynced, appendFD >= 0 else { return }
        guard fdatasync(appendFD) == 0 else { throw .io("cannot sync the journal in \(directory): \(String(cString: strerror(errno)))") }
        unsynced = false
    }

    /// Writes the first messages of `messages` that fit in the current segment (at least one),
    /// all or none; returns how many.
    private func writeRun(_ messages: ArraySlice<SpooledMessage>, sync: Bool) throws(SpoolError) -> Int {
        guard let first = messages.first else { return 0 }
        try prepareSegment(for: first)
        let last = segments.count - 1
        let start = segments[last].size
        scratch.removeAll(keepingCapacity: true)
        var taken = 0
        for message in messages {
            if taken > 0 && start + scratch.count + message.recordSize > segmentBytes { break }
            JournalRecord.encode(message, into: &scratch)
            taken += 1
        }
        let path = directory + "/" + segments[last].name
        do throws(SpoolError) {
            try JournalWrite.all(appendFD, scratch, path)
            if sync {
                guard fdatasync(appendFD) == 0 else { throw SpoolError.io("cannot sync \(path): \(String(cString: strerror(errno)))") }
            }
        } catch {
            // Cut back off: a torn record before later ones would read as damage.
            _ = ftruncate(appendFD, off_t(start))
            throw error
        }
        unsynced = !sync
        bytesWritten += scratch.count
        segments[last].size += scratch.count
        segments[last].records += taken
        segments[last].lastSequence = messages[messages.startIndex + taken - 1].sequence
        return taken
    }

    /// Makes the last segment the one `message` is appended to: the current one while it has room,
    /// else a new one (named after the message's sequence number).
    private func prepareSegment(for message: SpooledMessage) throws(SpoolError) {
        if let last = segments.last, last.size == 0 || last.size + message.recordSize <= segmentBytes {
            if appendFD >= 0 { return }
            let path = directory + "/" + last.name
            appendFD = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard appendFD >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
            return
        }
        try syncAppends()
        closeAppend()
        let segment = JournalSegment(firstSequence: message.sequence)
        let path = directory + "/" + segment.name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw .io("cannot create \(path): \(String(cString: strerror(errno)))") }
        JournalWrite.syncDirectory(directory)
        appendFD = fd
        segments.append(segment)
    }

    private func closeAppend() {
        if appendFD >= 0 { close(appendFD) }
        appendFD = -1
        unsynced = false
    }

    /// Writes the messages waiting in memory, in order, as far as the disk takes them.
    private func writeUnwritten() throws(SpoolError) {
        while unwrittenHead < unwritten.count {
            unwrittenHead += try writeRun(unwritten[unwrittenHead...], sync: true)
        }
        unwritten.removeAll()
        unwrittenHead = 0
    }

    // MARK: delivering

    /// The next undelivered messages, oldest first, at most `limit`: what to publish next. Reads
    /// ahead from disk only as far as asked.
    public func pending(upTo limit: Int) -> [SpooledMessage] {
        while window.count - windowHead < limit {
            guard let message = readNext() else {
                // Everything there is was read: what the window holds is all that is left (records
                // unreadable since loading are not counted any more).
                count = window.count - windowHead
                break
            }
            window.append(message)
        }
        return Array(window[windowHead..<min(window.count, windowHead + limit)])
    }

    /// Forgets the messages up to `sequence` once delivered, read by `pending` or not (those
    /// already gone are ignored): moves the cursor and deletes the segments it has passed.
    public func delivered(through sequence: UInt64) throws(SpoolError) {
        guard sequence >= cursor else { return }
        // Messages delivered without being read first (the MQTT client sent them again after a
        // reconnect) are read now, so that the window below counts them.
        while lastRead < sequence, let message = readNext() { window.append(message) }
        var left = 0
        while windowHead < window.count, window[windowHead].sequence <= sequence {
            windowHead += 1
            left += 1
        }
        compactWindow()
        count = max(0, count - left)
        advance(to: sequence + 1)
        while unwrittenHead < unwritten.count, unwritten[unwrittenHead].sequence <= sequence {
            bytes -= unwritten[unwrittenHead].recordSize
            unwrittenHead += 1
        }
        if unwrittenHead == unwritten.count {
            unwritten.removeAll()
            unwrittenHead = 0
        }
        var freed = false
        while let first = segments.first, first.lastSequence < cursor {
            removeFirstSegment()
            freed = true
        }
        if count == 0 { overflowReported = false }
        bytesWritten += try cursorFile.write(cursor)
        if freed && !isPersisted { try writeUnwritten() }
    }

    private func readNext() -> SpooledMessage? {
        while readSegment < segments.count {
            let segment = segments[readSegment]
            if readOffset >= segment.size {
                guard readSegment < segments.count - 1 else { break }
                readSegment += 1
                readOffset = 0
                continue
            }
            do {
                if reader?.segment != segment.firstSequence {
                    reader?.file.close()
                    reader = nil
                    reader = (segment.firstSequence, try JournalFileReader(path: directory + "/" + segment.name))
                }
                switch try reader!.file.record(at: readOffset, end: segment.size) {
                case let .record(message, size):
                    readOffset += size
                    if message.sequence > lastRead && message.sequence >= cursor {
                        lastRead = message.sequence
                        return message
                    }
                case .incomplete, .invalid:
                    throw SpoolError.io("a record at byte \(readOffset) does not check out any more")
                }
            } catch {
                // The file changed since it was loaded (failing storage): the rest of it is lost.
                notice = "spool journal: skipped the rest of \(segment.name): \(error)"
                readOffset = segment.size
            }
        }
        guard unwrittenHead < unwritten.count else { return nil }
        let first = unwritten[unwrittenHead].sequence
        let index = unwrittenHead + (lastRead >= first ? Int(lastRead - first + 1) : 0)
        guard index < unwritten.count else { return nil }
        lastRead = unwritten[index].sequence
        return unwritten[index]
    }

    // MARK: the bound

    /// Deletes the oldest segment, or when there is none the oldest message waiting in memory.
    /// Returns false when there is nothing left to delete.
    private func dropOldest() -> Bool {
        if let first = segments.first {
            let undelivered = first.lastSequence < cursor ? 0
                : min(first.records, Int(first.lastSequence - max(cursor, first.firstSequence) + 1))
            lost(undelivered)
            removeFirstSegment()
            advance(to: first.lastSequence + 1)
        } else if unwrittenHead < unwritten.count {
            let message = unwritten[unwrittenHead]
            unwrittenHead += 1
            bytes -= message.recordSize
            if message.sequence >= cursor { lost(1) }
            advance(to: message.sequence + 1)
        } else {
            return false
        }
        bytesWritten += (try? cursorFile.write(cursor)) ?? 0
        return true
    }

    private func lost(_ messages: Int) {
        guard messages > 0 else { return }
        dropped += messages
        count = max(0, count - messages)
        if !overflowReported {
            overflowReported = true
            notice = "the journal reached its bound (spool_max_bytes, \(maximumBytes) bytes): dropping its oldest messages, "
                + "a segment at a time (counted in dropped)"
        }
    }

    private func removeFirstSegment() {
        let segment = segments.removeFirst()
        if segments.isEmpty { closeAppend() }
        if reader?.segment == segment.firstSequence {
            reader?.file.close()
            reader = nil
        }
        if readSegment > 0 {
            readSegment -= 1
        } else {
            readOffset = 0
        }
        bytes -= segment.size
        unlink(directory + "/" + segment.name)
    }

    /// Moves the cursor to `sequence` (never back); the window forgets what is behind it.
    private func advance(to sequence: UInt64) {
        guard sequence > cursor else { return }
        cursor = sequence
        lastRead = max(lastRead, sequence - 1)
        while windowHead < window.count, window[windowHead].sequence < sequence { windowHead += 1 }
        compactWindow()
    }

    private func compactWindow() {
        if windowHead == window.count {
            window.removeAll(keepingCapacity: true)
            windowHead = 0
        } else if windowHead > 256, windowHead * 2 > window.count {
            window.removeFirst(windowHead)
            windowHead = 0
        }
    }

    private static func segmentNames(_ directory: String) throws(SpoolError) -> [String] {
        guard let stream = opendir(directory) else {
            throw .io("cannot list \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if JournalSegment.firstSequence(ofName: name) != nil {
                names.append(name)
            } else if name.hasPrefix(JournalSegment.prefix), name.hasSuffix(JournalSegment.suffix + ".tmp") {
                unlink(directory + "/" + name)   // a copy that recovery did not finish
            }
        }
        return names
    }
}
