import Vocabulary

/// The topics of one gateway: `<base>/<gw>/…`, rendered from the channels of ``channels``, the
/// topic table the AsyncAPI document (`uwb2mqtt schema api`) lists.
public struct TopicTree: Sendable, Equatable {
    /// `mqtt.base_topic`, used as configured (it is the operator's, not user data) but without
    /// empty levels or wildcards.
    public let base: String
    /// `gateway.id`, sanitized.
    public let gateway: String

    /// `<base>/<gw>`.
    public let root: String
    /// `<base>/<gw>/request/`, which every message received is compared with.
    private let requestPrefix: String

    public init(base: String, gatewayID: String) {
        self.base = TopicSegment.base(base)
        gateway = TopicSegment.sanitize(gatewayID)
        root = "\(self.base)/\(gateway)"
        requestPrefix = root + "/request/"
    }

    public var status: String { ChannelDeclaration.status.topic(base, gateway) }
    public var device: String { ChannelDeclaration.device.topic(base, gateway) }
    public var rules: String { ChannelDeclaration.rules.topic(base, gateway) }
    public var metrics: String { ChannelDeclaration.metrics.topic(base, gateway) }
    public var requestFilter: String { ChannelDeclaration.request.topic(base, gateway, "+") }

    /// The topic of `channel`, one of a peer's (``ChannelDeclaration/peerRange``, …), for the peer
    /// whose topic segment is `peerSegment` (sanitized here).
    public func peer(_ peerSegment: String, _ channel: ChannelDeclaration) -> String {
        channel.topic(base, gateway, TopicSegment.sanitize(peerSegment))
    }
    public func ranking(_ rule: String) -> String { ChannelDeclaration.ranking.topic(base, gateway, TopicSegment.sanitize(rule)) }
    public func response(_ name: String) -> String { ChannelDeclaration.response.topic(base, gateway, TopicSegment.sanitize(name)) }

    /// What phones' apps publish while they range: `phone/<name>/report`.
    public var phoneReportFilter: String { ChannelDeclaration.phoneReport.topic(base, gateway, "+") }

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
        guard topic.utf8.starts(with: requestPrefix.utf8) else { return nil }
        return String(decoding: topic.utf8.dropFirst(requestPrefix.utf8.count), as: UTF8.self)
    }
}

// MARK: - The topic table

extension TopicParameter {
    public static let gateway = TopicParameter("gw", "gateway.id (default: the host name), lower-cased and sanitized", examples: ["lobby"])
    public static let peer = TopicParameter(
        "peer", "the peer's configured name, or its address (0x0001) when it has none, lower-cased and sanitized", examples: ["phone-anna"])
    public static let rankingRule = TopicParameter("rule", "the ranking rule's name, lower-cased and sanitized", examples: ["next-customer"])
    public static let phone = TopicParameter("name", "the name the phone's session was asked for, lower-cased and sanitized",
                                             examples: ["phone-anna"])
    public static let request = TopicParameter("name", "the request's name", examples: ["ping"])
    public static let requester = TopicParameter("requester", "whatever an MQTT 5 requester put below response/<name>/ in its Response Topic",
                                                 examples: ["app-7"])
}

/// Whether a channel is retained and at which QoS is said here and again where the core
/// publishes (`publishDurable`, `publishLive`, `respond`); `PublishedChannelsTests` holds every
/// message of the core to its channel's declaration.
extension ChannelDeclaration {
    /// Every channel of a gateway's tree, in the order of mqtt-api.md; then each request and its
    /// answer on a channel of its own (``requestChannels``).
    package static var agentChannels: [ChannelDeclaration] {
        [status, device, rules, peerRange, peerState, peerFeedback, peerPosition, peerEvent, ranking, metrics, phoneReport]
            + requestChannels + [request, response, requesterResponse]
    }

    private static func agent(_ id: String, _ leaf: [Level], summary: String, publisher: Publisher = .service, retained: Bool, qos: Int,
                              qosSetting: String? = nil, live: Bool = false, payload: JSONSchema, answer: String? = nil) -> ChannelDeclaration {
        ChannelDeclaration(id, service: "agent", [.parameter(.base), .parameter(.gateway)] + leaf, summary: summary, publisher: publisher,
                           retained: retained, qos: qos, qosSetting: qosSetting, live: live, payload: payload, answer: answer)
    }

    public static let status = agent(
        "status", [.literal("status")], summary: "The agent is online (on connect) or offline (a clean stop, or its last will), and where the gateway stands.",
        retained: true, qos: 1, payload: Payloads.statusSchema)
    public static let device = agent(
        "device", [.literal("device")], summary: "The device's state, on every change.", retained: true, qos: 1,
        payload: Payloads.deviceFields.schema)
    public static let rules = agent(
        "rules", [.literal("rules")], summary: "The outcome of every load or reload of the rules file, and the active rules' distances.",
        retained: true, qos: 1, payload: RulesLoading.payloadFields.schema)
    public static let peerRange = agent(
        "peerRange", [.literal("peer"), .parameter(.peer), .literal("range")], summary: "Every ranging measurement of the peer.",
        retained: false, qos: 0, qosSetting: "mqtt.qos_ranges", live: true, payload: Payloads.rangeSchema)
    public static let peerState = agent(
        "peerState", [.literal("peer"), .parameter(.peer), .literal("state")],
        summary: "The peer's state: on every change of a discrete member, else at most every mqtt.state_interval. "
            + "Cleared (an empty retained message) when a reload removes the peer.",
        retained: true, qos: 1, payload: ProximityPayloads.stateSchema)
    public static let peerFeedback = agent(
        "peerFeedback", [.literal("peer"), .parameter(.peer), .literal("feedback")],
        summary: "Every measurement while the peer is in a stage, an approach or a facing rule.",
        retained: false, qos: 0, live: true, payload: ProximityPayloads.feedbackSchema)
    public static let peerPosition = agent(
        "peerPosition", [.literal("peer"), .parameter(.peer), .literal("position")],
        summary: "Every measurement with a valid angle of arrival (never with a DWM3001C, which has none).",
        retained: false, qos: 0, live: true, payload: ProximityPayloads.positionSchema)
    public static let peerEvent = agent(
        "peerEvent", [.literal("peer"), .parameter(.peer), .literal("event")], summary: "Every discrete transition of the peer.",
        retained: false, qos: 1, payload: ProximityPayloads.eventFields.schema)
    public static let ranking = agent(
        "ranking", [.literal("ranking"), .parameter(.rankingRule)],
        summary: "A ranking rule's peers, best first, when its order or membership changes (judged once per ranging round).",
        retained: true, qos: 1, payload: ProximityPayloads.rankingSchema)
    public static let metrics = agent(
        "metrics", [.literal("metrics")], summary: "The agent's counters, every mqtt.metrics_interval.",
        retained: false, qos: 0, live: true, payload: AgentCore.metricsFields.schema)
    public static let phoneReport = agent(
        "phoneReport", [.literal("phone"), .parameter(.phone), .literal("report")],
        summary: "What a phone's app measured of the gateway while its session ranges, with the session's report_token; "
            + "anything else is dropped and counted. Not retained.",
        publisher: .clients, retained: false, qos: 0, payload: PhoneReport.schema)
    /// Requests the agent does not know; answered on ``response``.
    public static let request = agent(
        "request", [.literal("request"), .parameter(.request)],
        summary: "Any other request name: answered on response/<name>, not ok. A retained request is ignored.",
        publisher: .clients, retained: false, qos: 1, payload: Request.plainBody, answer: "response")
    public static let response = agent(
        "response", [.literal("response"), .parameter(.request)],
        summary: "The answer to a request whose name the agent does not know, or that it refused before reading it.",
        retained: false, qos: 1, payload: Request.refusal)

    /// An MQTT 5 requester's Response Topic under the gateway's own `response/<name>/` (one level
    /// below it here; a topic under a prefix of `mqtt.response_topic_prefixes` is the requester's
    /// own tree): the answer to that request, with the requester's correlation data.
    public static let requesterResponse = agent(
        "requesterResponse", [.literal("response"), .parameter(.request), .parameter(.requester)],
        summary: "The answer to a request whose MQTT 5 Response Topic lies here, with its Correlation Data.",
        retained: false, qos: 1, payload: .anyOf(Request.contracts.map(\.answer) + [Request.refusal]))

    /// Each request on `request/<name>` and its answer on `response/<name>`.
    package static var requestChannels: [ChannelDeclaration] {
        Request.contracts.flatMap { contract -> [ChannelDeclaration] in
            let id = contract.name.split(separator: "_").enumerated().map { $0 == 0 ? String($1) : $1.prefix(1).uppercased() + $1.dropFirst() }.joined()
            return [agent(id + "Request", [.literal("request"), .literal(contract.name)],
                          summary: contract.summary + " The body may be empty. A retained request is ignored.", publisher: .clients,
                          retained: false, qos: 1, payload: contract.body, answer: id + "Response"),
                    agent(id + "Response", [.literal("response"), .literal(contract.name)], summary: "The answer to \(contract.name).",
                          retained: false, qos: 1, payload: contract.answer)]
        }
    }
}
