import Vocabulary

/// What each request takes and answers, for the AsyncAPI document (`uwb2mqtt schema api`). The
/// switches are exhaustive: a new ``Request/Name`` does not build until it says what its body may
/// hold and what its answer's `data` is, both declared beside the code that reads and writes them.
extension Request.Name {
    /// What the request does, in a sentence.
    var summary: String {
        switch self {
        case .ping: "Whether the agent is there: its version and uptime."
        case .state: "Every peer's state now, and the device's."
        case .reloadRules: "Read the rules file again; answered once it is read (an error keeps the active rules)."
        case .sessionStart: "Start the configured ranging session."
        case .sessionStop: "Stop the configured ranging session (the device goes idle)."
        case .deviceReset: "Reset the device and bring it up again."
        case .phoneSession:
            "A phone asks to range: an Android phone's Jetpack session (answered once the device ranges), or an iPhone's "
                + "accessory configuration data (answered at once)."
        case .phoneSessionStart: "An iPhone's session as iOS chose it; answered once the device ranges with it."
        case .phoneSessionStop: "Let a phone go: its session ends and its peer leaves."
        case .rulesGet: "The active rules file, whole, and its sha256."
        case .rulesSet:
            "A whole new rules file (the body itself, or JSON with rules): validated whole, then written beside the old one "
                + "(kept as .bak) and loaded; a broken one changes nothing and the error says file:line:column."
        }
    }

    /// The body's members (a body may also be empty).
    var body: JSONSchema {
        switch self {
        case .ping, .state, .reloadRules, .sessionStart, .sessionStop, .deviceReset: Request.plainBody
        case .phoneSession: .oneOf([PhoneSessionRequest.bodySchema, IPhoneSessionRequest.Accessory.bodySchema])
        case .phoneSessionStart: IPhoneSessionRequest.Start.bodySchema
        case .phoneSessionStop: PhonesComponent.stopBody
        case .rulesGet: Request.plainBody
        case .rulesSet:
            .oneOf([JSONSchema.object([Request.idProperty, JSONSchema.Property(.rules, JSONSchema.string.described("the rules file's text"))]),
                    JSONSchema.string.described("the rules file itself as the body (not JSON): YAML, UTF-8, at most 60 KiB")])
        }
    }

    /// The `data` of an answer that is `ok`.
    var data: JSONSchema {
        switch self {
        case .ping: RequestsComponent.pingData.schema
        case .state: RequestsComponent.stateData.schema
        case .reloadRules: RulesComponent.reloadData.schema
        case .sessionStart, .sessionStop, .deviceReset: .object([])
        case .phoneSession:
            .oneOf([PhoneSessions.androidAnswerFields.schema.described("an Android phone's session, as the gateway runs it"),
                    PhoneSessions.accessoryAnswerFields.schema.described("an iPhone's accessory configuration data")])
        case .phoneSessionStart: PhoneSessions.startAnswerFields.schema
        case .phoneSessionStop: PhoneSessions.stopAnswerFields.schema
        case .rulesGet: RulesComponent.getData.schema
        case .rulesSet: RulesComponent.setData.schema
        }
    }
}

extension Request {
    /// `id` as a body may carry it and the answer echoes it.
    static let idProperty = JSONSchema.Property(
        .id, JSONSchema([JSONMember("type", .list(["string", "integer"])), JSONMember("maxLength", .int(Int64(maximumIDLength)))])
            .described("anything the requester chooses, echoed in the answer: a string of at most \(maximumIDLength) characters or an integer"),
        required: false)

    /// A body that carries nothing but its `id`: other members are ignored.
    static let plainBody = JSONSchema.object([idProperty]).with("additionalProperties", true)

    /// One request as the AsyncAPI document describes it: its name (the topic's last level),
    /// what it does, its body and its answer.
    package struct Contract: Sendable {
        package let name: String
        package let summary: String
        package let body: JSONSchema
        package let answer: JSONSchema
    }

    /// Every request the agent answers, in ``Name`` order.
    package static var contracts: [Contract] {
        Name.allCases.map { Contract(name: $0.rawValue, summary: $0.summary, body: $0.body, answer: Payloads.responseSchema(data: $0.data)) }
    }

    /// The answer to a request the agent does not know, or one it refuses before reading (too
    /// large, not JSON, an `id` it cannot echo): on `response/<name>`, never `ok`.
    package static var refusal: JSONSchema { Payloads.refusalSchema }
}
