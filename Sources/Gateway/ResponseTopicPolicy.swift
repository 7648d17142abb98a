import MQTTClient
import Vocabulary

/// Where an MQTT 5 requester may have its answers sent (its Response Topic): under the gateway's
/// own `response/` level, or under a prefix the operator allows (`mqtt.response_topic_prefixes`,
/// e.g. `clients/`). Nothing from the network may make the agent publish anywhere else: not into
/// its own peers' or status topics, and not into another gateway's tree.
struct ResponseTopicPolicy: Sendable, Equatable {
    /// `<base>/<gw>/response/`.
    let own: String
    /// Each ends with `/`.
    let prefixes: [String]

    init(topics: TopicTree, prefixes: [String]) {
        own = topics.root + "/response/"
        self.prefixes = prefixes.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
    }

    /// Nil when `topic` may take an answer, else why not (said to the requester on `response/<name>`).
    func refusal(of topic: String) -> String? {
        let shown = "\"" + Excerpt.of(topic, limit: 80) + "\""
        if topic.utf8.count > Self.maximumTopicBytes {
            return "the response topic \(shown) is longer than \(Self.maximumTopicBytes) bytes"
        }
        if let problem = MQTTTopic.publishProblem(topic) { return "the response topic \(shown) is not a topic to publish to: \(problem)" }
        let bytes = topic.utf8
        if bytes.count > own.utf8.count, bytes.starts(with: own.utf8) { return nil }
        for prefix in prefixes where bytes.count > prefix.utf8.count && bytes.starts(with: prefix.utf8) { return nil }
        let allowed = ([own] + prefixes).map { "\($0)…" }.joined(separator: ", ")
        return "the response topic \(shown) is outside what this gateway answers on (\(allowed); mqtt.response_topic_prefixes)"
    }

    /// The longest response topic taken: a topic of the agent's own is at most this long too
    /// (mqtt-api.md, names).
    static let maximumTopicBytes = 512
}
