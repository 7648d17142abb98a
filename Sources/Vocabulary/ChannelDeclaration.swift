/// One channel of a topic tree — the agent's `<base>/<gw>/…` or the fuse's `<base>/site/<site>/…`
/// — declared once: its levels, who publishes there, retained or not, at which QoS, and the schema
/// of its payloads. The tree's topics are rendered from it (`TopicTree`, `FuseCore`) and the
/// AsyncAPI document (`uwb2mqtt schema api`) lists it, so that the address a subscriber reads
/// in the document is the one the code publishes to.
public struct ChannelDeclaration: Sendable {
    /// A level of the address: fixed text, or a parameter such as `<peer>`.
    public enum Level: Hashable, Sendable {
        case literal(String)
        case parameter(TopicParameter)
    }

    /// Who publishes on the channel.
    public enum Publisher: Hashable, Sendable {
        /// The program whose tree it is (the agent, the fuse).
        case service
        /// Others: a request, a phone's report. The program subscribes.
        case clients
    }

    /// The channel's name in the document (`peerRange`).
    public let id: String
    /// The program whose tree it is: `agent` or `fuse`.
    public let service: String
    public let levels: [Level]
    /// What is published there, and when, in a sentence.
    public let summary: String
    public let publisher: Publisher
    public let retained: Bool
    public let qos: Int
    /// The setting that chooses the QoS when it is not fixed (`mqtt.qos_ranges`), with `qos` its default.
    public let qosSetting: String?
    /// Live data (a measurement's `range`, `feedback`, `position`): worthless once newer data
    /// exists, so kept only as the newest while the broker is away.
    public let live: Bool
    /// The schema of every payload on the channel (empty retained clears aside).
    public let payload: JSONSchema
    /// For a request: the ``id`` of the channel its answer comes on.
    public let answer: String?

    public init(_ id: String, service: String, _ levels: [Level], summary: String, publisher: Publisher = .service,
                retained: Bool, qos: Int, qosSetting: String? = nil, live: Bool = false, payload: JSONSchema,
                answer: String? = nil) {
        self.id = id
        self.service = service
        self.levels = levels
        self.summary = summary
        self.publisher = publisher
        self.retained = retained
        self.qos = qos
        self.qosSetting = qosSetting
        self.live = live
        self.payload = payload
        self.answer = answer
    }

    /// The address with its parameters in braces: `{base}/{gw}/peer/{peer}/range`.
    public var address: String {
        levels.map { level in
            switch level {
            case let .literal(text): text
            case let .parameter(parameter): "{\(parameter.name)}"
            }
        }.joined(separator: "/")
    }

    /// The parameters, in address order.
    public var parameters: [TopicParameter] {
        levels.compactMap { if case let .parameter(p) = $0 { p } else { nil } }
    }

    /// The topic with `values` for the parameters, in address order, as they are (sanitized by
    /// the caller, or a wildcard for a subscription).
    public func topic(_ values: String...) -> String {
        var next = values.makeIterator()
        var topic = ""
        for (index, level) in levels.enumerated() {
            if index > 0 { topic += "/" }
            switch level {
            case let .literal(text): topic += text
            case .parameter: topic += next.next() ?? "+"
            }
        }
        return topic
    }
}

/// A parameter of channel addresses (`<peer>`): its name in braces and what it stands for.
public struct TopicParameter: Hashable, Sendable {
    public let name: String
    public let description: String
    public let examples: [String]

    public init(_ name: String, _ description: String, examples: [String] = []) {
        self.name = name
        self.description = description
        self.examples = examples
    }

    /// `mqtt.base_topic`, the root of every tree; it may span levels.
    public static let base = TopicParameter("base", "mqtt.base_topic (default uwb2mqtt); as configured, without empty levels or wildcards",
                                            examples: ["uwb2mqtt"])
}
