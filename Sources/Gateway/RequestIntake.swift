import MQTTClient

/// The limits every message on `request/<name>` passes before a component answers it
/// (mqtt-api.md, request limits): a retained request is ignored, a name longer than a topic
/// segment may be is dropped unanswered (and counted in `requests_dropped`), a malformed one is
/// answered with an error, never with silence.
struct RequestIntake {
    enum Outcome {
        /// Well-formed: for the component that answers `request.name`.
        case accepted(Request)
        /// Answered at once with `ok: false`.
        case rejected(RequestError)
        /// Dropped unanswered, counted.
        case dropped(log: String)
        /// A retained request, not acted on; `log` is said once per topic.
        case ignored(log: String?)
    }

    /// The longest request name answered: a topic segment's limit.
    static let maximumNameLength = 64
    /// Request topics whose retained message was ignored and logged (each once; bounded).
    private var retainedLogged: Set<String> = []
    /// Where MQTT 5 requesters may have their answers sent.
    var responseTopics: ResponseTopicPolicy

    init(responseTopics: ResponseTopicPolicy) {
        self.responseTopics = responseTopics
    }

    mutating func admit(name: String, _ message: MQTTMessage) -> Outcome {
        if message.retained {
            // A request is an act of now, not a standing order: a retained `session_stop` would
            // otherwise stop ranging after every restart of the agent or the broker. An empty one
            // is someone clearing such a message (the agent subscribes to requests with MQTT 5's
            // retain-as-published, so a clear arrives retained): nothing to do or say.
            if message.payload.isEmpty { return .ignored(log: nil) }
            guard retainedLogged.count < 64, retainedLogged.insert(message.topic).inserted else { return .ignored(log: nil) }
            return .ignored(log: "ignored the retained message on \(message.topic): requests are not retained; "
                            + "clear it with: mosquitto_pub -r -n -t '\(message.topic)'")
        }
        guard name.count <= Self.maximumNameLength else {
            return .dropped(log: "dropped a request with a \(name.utf8.count)-byte name")
        }
        // An MQTT 5 requester's correlation data is echoed wherever the answer goes; a response
        // topic the gateway may not publish to is refused on `response/<name>`, which the
        // requester can subscribe to like any v1 client.
        var reply = Reply(correlationData: message.properties.correlationData)
        if let topic = message.properties.responseTopic {
            if let refusal = responseTopics.refusal(of: topic) {
                return .rejected(RequestError(name: name, reply: reply, message: refusal))
            }
            reply.topic = topic
        }
        switch Request.parse(name: name, payload: message.payload, size: message.withheldPayloadBytes ?? message.payload.count,
                             reply: reply) {
        case let .failure(problem): return .rejected(problem)
        case let .success(request): return .accepted(request)
        }
    }
}
