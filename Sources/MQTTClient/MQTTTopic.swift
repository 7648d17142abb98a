import CMosquitto

/// Topic checks done before anything reaches libmosquitto, so that a bad topic (often built from
/// user data) is a clear `.invalidTopic` error and never a silent drop or a trap.
public enum MQTTTopic {
    /// A topic to publish to: non-empty, UTF-8 without NUL, no `+`/`#` wildcards, ≤ 65535 bytes.
    ///
    /// The wildcard test is `mosquitto_pub_topic_check`'s, done on the string's UTF-8 view: this
    /// runs for every published message, and passing a Swift `String` as a C string argument
    /// copies it into a new array each time. A Swift string is always valid UTF-8, and
    /// `+` and `#` are single bytes that never occur inside a multi-byte sequence.
    static func validateForPublish(_ topic: String) throws(MQTTError) {
        // One pass over the bytes: this runs for every message published.
        let found = topic.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.contains { $0 == 0 || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }
        }
        guard found != false || topic.isEmpty || topic.utf8.count > 65535 else { return }
        try validateCommon(topic)
        if topic.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }) {
            throw .invalidTopic(topic: topic, reason: "wildcards + and # are not allowed when publishing")
        }
    }

    /// Whether `topic` passes both checks below at a glance: non-empty, at most 65535 bytes, every
    /// byte printable ASCII and neither `+` nor `#` — the agent's own topics. One pass over the
    /// bytes for every message published, instead of one per check.
    static func isPlainForPublish(_ topic: String) -> Bool {
        topic.utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty, bytes.count <= 65535 else { return false }
            // Eight bytes at a time: any byte of 0x80 and above, below 0x20, or equal to 0x7F, `+`
            // or `#` flags the word (see `zeroByte`), whose bytes are then tested one by one.
            let ones: UInt64 = 0x0101_0101_0101_0101, highs = ones &* 0x80
            var index = 0
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let flagged = word | ((word &- ones &* 0x20) & ~word) | zeroByte(word ^ (ones &* 0x7F))
                    | zeroByte(word ^ (ones &* UInt64(UInt8(ascii: "+")))) | zeroByte(word ^ (ones &* UInt64(UInt8(ascii: "#"))))
                if flagged & highs != 0 {
                    for k in index..<(index + 8) where !isPlain(base[k]) { return false }
                }
                index += 8
            }
            while index < bytes.count {
                if !isPlain(base[index]) { return false }
                index += 1
            }
            return true
        } ?? false
    }

    /// Printable ASCII, neither `+` nor `#`. A byte outside 0x20…0x7E wraps to 0x5F or more.
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte &- 0x20 < 0x5F && byte != UInt8(ascii: "+") && byte != UInt8(ascii: "#")
    }

    /// The high bit set in a byte of the result where `word` may have a zero byte: always where
    /// it has one (a borrow may flag the bytes above a zero byte too, and a byte of 0x80 and
    /// above is flagged by the caller anyway).
    private static func zeroByte(_ word: UInt64) -> UInt64 {
        (word &- 0x0101_0101_0101_0101) & ~word
    }

    /// What libmosquitto's `mosquitto_validate_utf8` refuses beyond invalid UTF-8 (which a Swift
    /// string never is): control characters (U+0000–U+001F, U+007F–U+009F) and non-characters
    /// (U+FDD0–U+FDEF, U+xFFFE, U+xFFFF). For the packets the client writes itself.
    static func validateCharacters(_ topic: String) throws(MQTTError) {
        let printable = topic.utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.contains { $0 < 0x20 || $0 >= 0x7F }
        }
        if printable == true { return }
        for scalar in topic.unicodeScalars {
            let v = scalar.value
            if v <= 0x1F || (0x7F...0x9F).contains(v) || (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE {
                throw .invalidTopic(topic: topic, reason: "it is not valid UTF-8")
            }
        }
    }

    /// A subscription filter: like a topic, but `+` may stand for a whole level and `#` for the rest.
    static func validateFilter(_ filter: String) throws(MQTTError) {
        try validateCommon(filter)
        if mosquitto_sub_topic_check(filter) != MosquittoCode.success {
            throw .invalidTopic(topic: filter, reason: "+ must fill a whole level and # must be the last level")
        }
    }

    private static func validateCommon(_ topic: String) throws(MQTTError) {
        if topic.isEmpty { throw .invalidTopic(topic: topic, reason: "it is empty") }
        if topic.utf8.contains(0) { throw .invalidTopic(topic: topic, reason: "it contains a NUL character") }
        if topic.utf8.count > 65535 { throw .invalidTopic(topic: topic, reason: "it is longer than 65535 bytes") }
    }
}

extension MQTTTopic {
    /// Why `topic` cannot be published to (empty, a NUL, a wildcard, too long, a character
    /// libmosquitto refuses), or nil: for topics that come from the network, such as a request's
    /// Response Topic.
    public static func publishProblem(_ topic: String) -> String? {
        do {
            try validateForPublish(topic)
            try validateCharacters(topic)
            return nil
        } catch {
            if case let .invalidTopic(_, reason) = error { return reason }
            return "\(error)"
        }
    }
}
