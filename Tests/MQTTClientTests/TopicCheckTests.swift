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
}
