/// The topics lately found plain (``MQTTTopic/isPlainForPublish(_:)``), by where their bytes are:
/// an agent publishes the same few dozen topic strings over and over (one per peer and leaf, made
/// once), and each is checked once instead of with every message.
///
/// Each slot keeps the string it remembers, so that its bytes stay that string's and unchanged for
/// as long as it is remembered: a string whose bytes are at the same address, with the same count,
/// is then the same text. A string of up to 15 bytes lives inside its own value, at no lasting
/// address, and is checked every time (its check is short). So is one longer than
/// ``longestRemembered``: what the memo keeps alive stays small whatever topics a client is made
/// to publish to (a name taken from another client's payload, a requester's response topic).
struct PlainTopics {
    private static let slotBits = 8
    static let longestRemembered = 1024
    /// Where each remembered string's bytes are, and how many: what a lookup compares.
    private var places = [(address: UnsafeRawPointer?, count: Int)](repeating: (nil, 0), count: 1 << Self.slotBits)
    /// The remembered strings themselves, which keep those bytes theirs.
    private var kept = [String?](repeating: nil, count: 1 << Self.slotBits)

    /// Whether `topic` passes ``MQTTTopic/isPlainForPublish(_:)``: remembered, or checked now.
    mutating func contains(_ topic: String) -> Bool {
        let count = topic.utf8.count
        guard count > 15, count <= Self.longestRemembered, let address = topic.utf8.withContiguousStorageIfAvailable({ UnsafeRawPointer($0.baseAddress) }) ?? nil
        else { return MQTTTopic.isPlainForPublish(topic) }
        // Fibonacci hashing, so that strings allocated a fixed stride apart land in different
        // slots (the address's own low bits would share a few); and a topic goes in the first
        // free of four slots from its own, so that a few whose slots coincide (likely among a few
        // dozen in 256) do not keep replacing one another.
        let home = Int(truncatingIfNeeded: (UInt64(UInt(bitPattern: address)) &* 0x9E37_79B9_7F4A_7C15) >> (64 - Self.slotBits))
        let mask = places.count - 1
        var free: Int?
        for probe in 0..<4 {
            let slot = (home + probe) & mask
            if places[slot].address == address, places[slot].count == count { return true }
            if free == nil, places[slot].address == nil { free = slot }
        }
        guard MQTTTopic.isPlainForPublish(topic) else { return false }
        let slot = free ?? home
        kept[slot] = topic
        places[slot] = (address, count)
        return true
    }
}
