@testable import MQTTClient
import Testing

/// The at-a-glance check of a topic the client publishes to (`MQTTTopic.isPlainForPublish`),
/// which decides whether a topic skips the full validation: it must say plain exactly when
/// every byte is printable ASCII other than `+` and `#`, wherever a byte that is not sits.
@Suite struct TopicCheckTests {
    @Test func plainExactlyWhenEveryByteIsPrintableASCIIWithoutWildcards() {
        let others: [String] = ["+", "#", "\u{0}", "\u{1F}", "\u{7F}", "é", "€", "😀", "\u{80}", " ", "~", "!", "\"", "*"]
        for length in 1...24 {
            for position in 0..<length {
                for other in others {
                    let topic = String((0..<length).map { $0 == position ? Character(other) : "a" })
                    let expected = topic.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7E && $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "#") }
                    #expect(MQTTTopic.isPlainForPublish(topic) == expected, "\(Array(topic.utf8))")
                }
            }
        }
        #expect(!MQTTTopic.isPlainForPublish(""))
        #expect(MQTTTopic.isPlainForPublish("uwb/gw-1/peer/anna/range"))
        #expect(!MQTTTopic.isPlainForPublish(String(repeating: "a", count: 65536)))
    }

    /// The memo of topics already found plain answers as the check does, for a topic seen before,
    /// a copy of it, an equal text made anew, and texts changed from a remembered one.
    @Test func rememberedTopicsAnswerAsTheCheckDoes() {
        var memo = PlainTopics()
        func plain(_ topic: String) -> Bool { memo.contains(topic) }
        let topic = "uwb/gw-1/peer/anna/range"
        #expect(plain(topic))
        #expect(plain(topic))
        let copy = topic
        #expect(plain(copy))
        #expect(plain(String(decoding: Array(topic.utf8), as: UTF8.self)))
        var wild = topic
        wild.append("/#")
        #expect(!plain(wild))
        var shorter = topic
        shorter.removeLast()
        #expect(plain(shorter))
        // Many topics, each checked, then remembered in their slots or replacing one another.
        for round in 0..<3 {
            for n in 0..<200 {
                let made = "uwb/gw-1/peer/tag-\(n)/feedback"
                #expect(plain(made), "round \(round)")
                #expect(!plain(made + "/+"), "round \(round)")
            }
        }
        #expect(!plain("uwb/gw-1/peer/\u{0}nna/range"))
        // Longer than the memo keeps: checked every time, answered the same.
        let long = "uwb/gw-1/peer/" + String(repeating: "a", count: PlainTopics.longestRemembered)
        #expect(plain(long))
        #expect(plain(long))
        #expect(!plain(long + "#"))
        #expect(plain("a/b"))
        #expect(!plain("a/#"))
    }
}
