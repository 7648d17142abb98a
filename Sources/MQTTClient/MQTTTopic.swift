import CMosquitto

/// Topic checks done before anything reaches libmosquitto, so that a bad topic (often built from
/// user data) is a clear `.invalidTopic` error and never a silent drop or a trap.
enum MQTTTopic {
    /// A topic to publish to: non-empty, UTF-8 without NUL, no `+`/`#` wildcards, ≤ 65535 bytes.
    static func validateForPublish(_ topic: String) throws(MQTTError) {
        try validateCommon(topic)
        if mosquitto_pub_topic_check(topic) != MosquittoCode.success {
            throw .invalidTopic(topic: topic, reason: "wildcards + and # are not allowed when publishing")
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
