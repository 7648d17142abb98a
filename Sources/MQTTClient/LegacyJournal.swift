#if canImport(Glibc)
import Glibc
#endif
import Vocabulary

/// The single-file journal of earlier versions, `<spool_dir>/journal`: records
/// `length(4) qos(1) retain(1) topic_length(2) topic payload crc32(4)` (little-endian, the
/// length and the CRC over `qos … payload`), without record markers or sequence numbers.
///
/// Read once when a spool is opened: its records are appended to the segments, then it is
/// deleted. Without markers it cannot be resynchronised: reading stops at the first record that
/// does not check out, and the file is kept as `journal.damaged`. A crash during the migration
/// migrates it again on the next start, so some of its messages may be delivered twice.
enum LegacyJournal {
    static let name = "journal"

    /// Moves the old journal's records into `spool`; returns what to report, nil when there was none.
    static func migrate(into spool: Spool) throws(Spool.SpoolError) -> String? {
        let path = spool.directory + "/" + name
        guard access(path, F_OK) == 0 else { return nil }
        var reader = try JournalFileReader(path: path)
        defer { reader.close() }
        let end = try reader.size()
        var offset = 0
        var migrated = 0
        var problem: String?
        var damaged = false
        while offset < end {
            guard let header = try reader.bytes(at: offset, count: 4, end: end) else {
                problem = "\(end - offset) bytes at its end were cut short"
                break
            }
            let length = Int(JournalRecord.readLE(Array(header), 0, 4))
            guard length >= 4, length <= JournalRecord.maximumBodySize else {
                problem = "the record at byte \(offset) is unreadable (impossible length); \(end - offset) bytes not migrated"
                damaged = true
                break
            }
            guard let record = try reader.bytes(at: offset, count: 8 + length, end: end) else {
                problem = "\(end - offset) bytes at its end were cut short"
                break
            }
            let bytes = Array(record)
            let body = 4..<(4 + length)
            let topicLength = Int(JournalRecord.readLE(bytes, 6, 2))
            guard JournalRecord.readLE(bytes, 4 + length, 4) == UInt64(CRC32.checksum(bytes, body)), 4 + topicLength <= length else {
                problem = "the record at byte \(offset) is damaged (checksum mismatch); \(end - offset) bytes not migrated"
                damaged = true
                break
            }
            let message = SpooledMessage(topic: String(decoding: bytes[8..<(8 + topicLength)], as: UTF8.self),
                                         payload: Array(bytes[(8 + topicLength)..<(4 + length)]), qos: Int(bytes[4]), retain: bytes[5] != 0)
            do {
                try spool.append(message, sync: false)
                migrated += 1
            } catch .topicTooLong, .messageTooLarge {
                // Could never be published: not worth carrying over.
            }
            offset += 8 + length
        }
        try spool.syncAppends()
        if damaged {
            rename(path, path + ".damaged")
        } else {
            unlink(path)
        }
        JournalWrite.syncDirectory(spool.directory)
        var note = "migrated \(migrated) message\(migrated == 1 ? "" : "s") from the previous version's journal"
        if let problem { note += "; \(problem)" + (damaged ? ", kept as \(name).damaged" : " (an interrupted write)") }
        return note
    }
}
