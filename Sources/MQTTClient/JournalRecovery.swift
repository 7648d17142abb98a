#if canImport(Glibc)
import Glibc
#endif

/// Loading the journal's segments: every record is checked once, so that damage is found at
/// start and delivery later reads only whole records.
///
/// A record that does not check out is skipped by resynchronising on the next record marker
/// that starts a valid record with a later sequence number; the gap in sequence numbers is how
/// many were lost. A segment with such damage is kept aside as `<name>.damaged` and replaced by a
/// copy of its valid records. The one exception is the end of the last segment: a record cut
/// short there (the file ends inside it, nothing valid follows) is an interrupted append, and
/// the segment is truncated before it.
struct JournalRecovery {
    let directory: String
    /// The first sequence number not yet delivered (the cursor).
    let cursor: UInt64
    private(set) var segments: [JournalSegment] = []
    /// Where delivery starts: a segment index and the offset of the first undelivered record.
    private(set) var readSegment = 0
    private(set) var readOffset = 0
    private(set) var pending = 0
    private(set) var lastSequence: UInt64 = 0
    private(set) var notes: [String] = []
    /// Damage whose extent is known once the next valid record is found.
    private var openDamage: (segment: String, offset: Int, reason: String, before: UInt64)?
    private var foundReadPosition = false

    init(directory: String, cursor: UInt64, names: [String]) throws(Spool.SpoolError) {
        self.directory = directory
        self.cursor = cursor
        let ordered = names.compactMap { name in JournalSegment.firstSequence(ofName: name).map { (name, $0) } }.sorted { $0.1 < $1.1 }
        for (index, (name, first)) in ordered.enumerated() {
            try load(name, firstSequence: first, isLast: index == ordered.count - 1)
        }
        if let damage = openDamage {
            notes.append("at least 1 record lost at the end of \(damage.segment) from byte \(damage.offset) (\(damage.reason))")
        }
        if !foundReadPosition { readSegment = segments.count }
    }

    private mutating func load(_ name: String, firstSequence: UInt64, isLast: Bool) throws(Spool.SpoolError) {
        let path = directory + "/" + name
        var reader = try JournalFileReader(path: path)
        defer { reader.close() }
        let end = try reader.size()
        var ranges: [(offset: Int, size: Int, sequence: UInt64)] = []
        var damaged = false
        var torn: Int?
        var offset = 0
        lastSequence = max(lastSequence, firstSequence &- 1)
        scan: while offset < end {
            var reason: String
            var incomplete = false
            switch try reader.record(at: offset, end: end) {
            case let .record(message, size) where message.sequence > lastSequence:
                resolveDamage(next: message.sequence)
                ranges.append((offset, size, message.sequence))
                lastSequence = message.sequence
                offset += size
                continue scan
            case .record:
                reason = "a sequence number out of order"
            case .incomplete:
                reason = "a record cut short"
                incomplete = true
            case let .invalid(why):
                reason = why
            }
            if let next = try resynchronise(&reader, from: offset + 1, end: end) {
                openDamage = (name, offset, reason, lastSequence)
                damaged = true
                offset = next
            } else if isLast && incomplete {
                torn = offset
                break scan
            } else {
                openDamage = (name, offset, reason, lastSequence)
                damaged = true
                break scan
            }
        }
        if let torn {
            notes.append("dropped the last record of \(name), cut short by an interrupted write (\(end - torn) bytes)")
            if !damaged { try truncate(path, to: torn) }
        }
        if damaged {
            let aside = try setAside(path, keeping: ranges, reader: &reader)
            notes.append("kept the damaged segment as \(aside)")
            var position = 0
            ranges = ranges.map { range in defer { position += range.size }; return (position, range.size, range.sequence) }
        }
        guard let last = ranges.last, last.sequence >= cursor else {
            // Empty, or delivered before a crash could delete it.
            unlink(path)
            return
        }
        var segment = JournalSegment(firstSequence: firstSequence)
        segment.lastSequence = last.sequence
        segment.records = ranges.count
        segment.size = last.offset + last.size
        if !foundReadPosition, let first = ranges.first(where: { $0.sequence >= cursor }) {
            foundReadPosition = true
            readSegment = segments.count
            readOffset = first.offset
        }
        pending += ranges.count { $0.sequence >= cursor }
        segments.append(segment)
    }

    /// The offset of the next valid record after damage, if any.
    private func resynchronise(_ reader: inout JournalFileReader, from offset: Int, end: Int) throws(Spool.SpoolError) -> Int? {
        var position = offset
        while let marker = try reader.nextMarker(from: position, end: end) {
            if case let .record(message, _) = try reader.record(at: marker, end: end), message.sequence > lastSequence { return marker }
            position = marker + 1
        }
        return nil
    }

    private mutating func resolveDamage(next sequence: UInt64) {
        guard let damage = openDamage else { return }
        openDamage = nil
        let lost = sequence - damage.before - 1
        notes.append("\(lost) record\(lost == 1 ? "" : "s") lost in \(damage.segment) at byte \(damage.offset) (\(damage.reason))")
    }

    private func truncate(_ path: String, to size: Int) throws(Spool.SpoolError) {
        guard Glibc.truncate(path, off_t(size)) == 0 else {
            throw .io("cannot truncate \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Keeps the damaged segment as `<path>.damaged` (or `.damaged-2`, …) and puts a copy of its
    /// valid records in its place: written and synced first, then swapped in by a rename, so that a
    /// crash meanwhile leaves either the damaged original or the copy, never neither.
    private func setAside(_ path: String, keeping ranges: [(offset: Int, size: Int, sequence: UInt64)],
                          reader: inout JournalFileReader) throws(Spool.SpoolError) -> String {
        let name = String(path.split(separator: "/").last ?? "")
        var aside = name + ".damaged"
        var attempt = 1
        while access(directory + "/" + aside, F_OK) == 0 {
            attempt += 1
            aside = name + ".damaged-\(attempt)"
        }
        guard link(path, directory + "/" + aside) == 0 else {
            throw .io("cannot keep \(path) aside as \(aside): \(String(cString: strerror(errno)))")
        }
        if ranges.isEmpty {
            unlink(path)
        } else {
            let temporary = path + ".tmp"
            let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
            guard fd >= 0 else { throw .io("cannot open \(temporary): \(String(cString: strerror(errno)))") }
            do throws(Spool.SpoolError) {
                for range in ranges {
                    guard let bytes = try reader.bytes(at: range.offset, count: range.size, end: range.offset + range.size) else {
                        throw .io("cannot read \(path) again")
                    }
                    try JournalWrite.all(fd, Array(bytes), temporary)
                }
                guard fsync(fd) == 0 else { throw .io("cannot sync \(temporary): \(String(cString: strerror(errno)))") }
            } catch {
                close(fd)
                unlink(temporary)
                throw error
            }
            close(fd)
            guard rename(temporary, path) == 0 else { throw .io("cannot replace \(path): \(String(cString: strerror(errno)))") }
        }
        JournalWrite.syncDirectory(directory)
        return aside
    }
}
