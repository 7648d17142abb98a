/// One append-only file of the journal, `journal-<first sequence, 20 digits>.seg`: what is known
/// about it without reading it again. Segments are deleted whole once delivered or dropped.
struct JournalSegment {
    /// The sequence number its name carries: that of the first record written to it.
    let firstSequence: UInt64
    /// The sequence number of its last record (`firstSequence - 1` while empty).
    var lastSequence: UInt64
    var records = 0
    /// Bytes of whole records: where the next one is appended.
    var size = 0

    init(firstSequence: UInt64) {
        self.firstSequence = firstSequence
        lastSequence = firstSequence &- 1
    }

    var name: String { Self.name(firstSequence) }

    static let prefix = "journal-"
    static let suffix = ".seg"

    static func name(_ firstSequence: UInt64) -> String {
        let digits = String(firstSequence)
        return prefix + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + suffix
    }

    /// The first sequence of a segment file's name; nil for any other file.
    static func firstSequence(ofName name: String) -> UInt64? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let digits = name.dropFirst(prefix.count).dropLast(suffix.count)
        guard digits.count == 20 else { return nil }
        return UInt64(digits)
    }
}
