import Vocabulary

/// How the answer to one request reaches its requester (mqtt-api.md, requests; MQTT 5
/// request/response): the request's `id`, echoed in the body, and — from an MQTT 5 requester —
/// its Response Topic, where the answer goes instead of `response/<name>`, and its Correlation
/// Data, echoed as a property.
struct Reply: Sendable, Equatable {
    var id: JSONValue?
    /// The requester's Response Topic, once `ResponseTopicPolicy` allowed it; nil: `response/<name>`.
    var topic: String?
    var correlationData: [UInt8]?

    init(id: JSONValue? = nil, topic: String? = nil, correlationData: [UInt8]? = nil) {
        self.id = id
        self.topic = topic
        self.correlationData = correlationData
    }

    /// Whether the requester can tell this answer from the others on its topic (by its id or its
    /// correlation data): it is then held on its own while the broker is away, not replaced by a
    /// newer answer on the same topic.
    var isDistinct: Bool { id != nil || correlationData != nil }
}
