import Vocabulary

/// The topics of one gateway: `<base>/<gw>/…`.
public struct TopicTree: Sendable, Equatable {
    /// `mqtt.base_topic`, used as configured (it is the operator's, not user data) but without
    /// empty levels or wildcards.
    public let base: String
    /// `gateway.id`, sanitized.
    public let gateway: String

    public init(base: String, gatewayID: String) {
        self.base = TopicSegment.base(base)
        gateway = TopicSegment.sanitize(gatewayID)
    }

    public var root: String { "\(base)/\(gateway)" }
    public var status: String { root + "/status" }
    public var device: String { root + "/device" }
    public var rules: String { root + "/rules" }
    public var metrics: String { root + "/metrics" }
    public var requestFilter: String { root + "/request/+" }

    public func peer(_ peerSegment: String, _ leaf: String) -> String {
        "\(root)/peer/\(TopicSegment.sanitize(peerSegment))/\(leaf)"
    }
    public func ranking(_ rule: String) -> String { "\(root)/ranking/\(TopicSegment.sanitize(rule))" }
    public func response(_ name: String) -> String { "\(root)/response/\(TopicSegment.sanitize(name))" }

    /// What phones' apps publish while they range: `phone/<name>/report`.
    public var phoneReportFilter: String { root + "/phone/+/report" }

    /// The `<name>` segment of a phone's report topic, or nil for any other topic (compared byte
    /// by byte, as `requestName(of:)`).
    public func phoneReportName(of topic: String) -> String? {
        let prefix = root + "/phone/", suffix = "/report"
        let bytes = topic.utf8
        guard bytes.count > prefix.utf8.count + suffix.utf8.count, bytes.starts(with: prefix.utf8),
              bytes.reversed().starts(with: suffix.utf8.reversed()) else { return nil }
        let name = bytes.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count)
        guard !name.contains(UInt8(ascii: "/")) else { return nil }
        return String(decoding: name, as: UTF8.self)
    }

    /// The request name of a topic under `request/`, or nil for any other topic.
    ///
    /// Compared byte by byte, as the broker matched the subscription: by characters, a name that
    /// starts with a combining mark would join the `/` before it into another character and the
    /// request would go unanswered.
    public func requestName(of topic: String) -> String? {
        let prefix = root + "/request/"
        guard topic.utf8.starts(with: prefix.utf8) else { return nil }
        return String(decoding: topic.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
    }
}
