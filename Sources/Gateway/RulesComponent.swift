import Proximity
import MQTTClient
import Vocabulary

/// The rules file: read at start and again on SIGHUP, on the `reload_rules` request and when the
/// file changes on disk (the shell watches it and reads it; this decides what the outcome
/// means). A file that fails validation never replaces the active rules; either way the outcome
/// is published (retained) on the `rules` topic.
///
/// Over MQTT (`RulesOverMQTT`): `rules_get` answers with the active file and its sha256;
/// `rules_set` and the site-wide `rules_topic` (when configured) bring a whole new file, which
/// the shell validates, writes and loads like any other.
struct RulesComponent: AgentComponent {
    /// The site-wide rules topic this gateway follows (`rules_topic`), if any.
    let siteTopic: String?
    /// Whether the last outcome published on `rules` was a success: a change on disk that leaves
    /// the active rules as they are (the file `rules_set` just wrote) then says nothing.
    private var lastLoadSucceeded = false

    init(siteTopic: String? = nil) {
        self.siteTopic = siteTopic
    }

    var requests: [Request.Name] { [.reloadRules, .rulesGet, .rulesSet] }
    var subscriptions: [String] { siteTopic.map { [$0] } ?? [] }

    /// The watch first: a change while the file is being read is then seen as one.
    mutating func start(_ core: inout AgentCore, at moment: AgentMoment) {
        core.act(.watchRules(path: core.configuration.rules))
        core.act(.loadRules(path: core.configuration.rules, trigger: .start))
    }

    /// SIGHUP reads the rules again, from a new path if the configuration names one.
    mutating func configurationReloaded(_ core: inout AgentCore, at moment: AgentMoment) {
        core.act(.watchRules(path: core.configuration.rules))
        core.act(.loadRules(path: core.configuration.rules, trigger: .signal))
    }

    /// Reloads and new rules each publish the retained `rules` and re-announce Home Assistant
    /// entities: at most one a second per request name (`RequestPacing`).
    mutating func answer(_ request: Request, _ core: inout AgentCore, at moment: AgentMoment) {
        switch request.name {
        case .rulesGet:
            guard core.paced(request, at: moment) else { return }
            answerWithActiveRules(request, &core)
        case .rulesSet:
            guard case let .string(text)? = request.body[RulesOverMQTT.rulesMember] else {
                return core.respond(to: request, failure: "\(RulesOverMQTT.rulesMember) is required: the rules file's text "
                                    + "(or publish the file itself as the body: mosquitto_pub -f rules.yaml)")
            }
            guard core.paced(request, at: moment) else { return }
            set(Array(text.utf8), origin: "rules_set", trigger: .request(request), &core, at: moment)
        default:
            guard core.paced(request, at: moment) else { return }
            core.act(.loadRules(path: core.configuration.rules, trigger: .request(request)))
        }
    }

    /// New rules on the site-wide topic, retained or not; an empty message (someone clearing the
    /// topic) changes nothing.
    mutating func receive(_ message: MQTTMessage, _ core: inout AgentCore, at moment: AgentMoment) -> Bool {
        guard let siteTopic, message.topic == siteTopic else { return false }
        let size = message.withheldPayloadBytes ?? message.payload.count
        if size == 0 { return true }
        let path = core.configuration.rules
        guard size <= RulesOverMQTT.maximumBytes else {
            let message = "the rules are \(size) bytes; the limit over MQTT is \(RulesOverMQTT.maximumBytes) bytes (\(RulesOverMQTT.maximumBytes >> 10) KiB)"
            rulesLoaded(.failure(RulesLoading.Failure(line: nil, column: nil, message: message, file: siteTopic)), path: path,
                        trigger: .site(topic: siteTopic), &core, at: moment)
            return true
        }
        guard String(validating: message.payload, as: UTF8.self) != nil else {
            rulesLoaded(.failure(RulesLoading.Failure(line: nil, column: nil, message: "the rules are not UTF-8 text", file: siteTopic)),
                        path: path, trigger: .site(topic: siteTopic), &core, at: moment)
            return true
        }
        set(message.payload, origin: siteTopic, trigger: .site(topic: siteTopic), &core, at: moment)
        return true
    }

    /// New rules: the rules already active (the site topic's retained message, delivered again at
    /// every reconnect) change nothing; any other go to the shell to be validated, written, loaded.
    private mutating func set(_ bytes: [UInt8], origin: String, trigger: RulesTrigger, _ core: inout AgentCore, at moment: AgentMoment) {
        let active = core.engine.rules
        let path = core.configuration.rules
        if lastLoadSucceeded, SHA256.hex(of: bytes) == active.sha256 {
            if case let .request(request) = trigger {
                core.respond(to: request, data: Self.setData.members((active, path, false)))
            }
            return
        }
        core.act(.setRules(bytes: bytes, origin: origin, path: path, trigger: trigger))
    }

    private func answerWithActiveRules(_ request: Request, _ core: inout AgentCore) {
        let active = core.engine.rules
        let path = core.configuration.rules
        guard !active.sha256.isEmpty else {
            return core.respond(to: request, failure: "no rules are active (\(path) did not load; see the rules topic)")
        }
        let data = Self.getData.members((active, path))
        let size = RenderedJSON(.object(data)).bytes.count
        guard size <= RulesOverMQTT.maximumBytes else {
            return core.respond(to: request, failure: "the active rules take \(size) bytes as JSON; rules_get answers up to "
                                + "\(RulesOverMQTT.maximumBytes) bytes: read \(path) on the gateway")
        }
        core.respond(to: request, data: data)
    }

    mutating func rulesLoaded(_ result: Result<Rules, RulesLoading.Failure>, path: String, trigger: RulesTrigger,
                              _ core: inout AgentCore, at moment: AgentMoment) {
        let initial = if case .start = trigger { true } else { false }
        switch result {
        case let .success(rules):
            if case .fileChanged = trigger, lastLoadSucceeded, rules.sha256 == core.engine.rules.sha256 { return }
            lastLoadSucceeded = true
            let warnings = rules.warnings(for: RulesLoading.identities(core.configuration))
            core.applyRules(rules, at: moment)
            core.log(.info, "rules \(path) \(trigger.done) (sha256 \(rules.sha256.prefix(12)))")
            for warning in RulesLoading.summarised(warnings) { core.log(.warning, "rules: \(warning)") }
            core.publishDurable(core.topics.rules, RulesLoading.payload(ts: moment.time, ok: true, source: path, active: rules,
                                                                        failure: nil, warnings: warnings), retain: true)
            if case let .request(request) = trigger {
                core.respond(to: request, data: request.name == .rulesSet ? Self.setData.members((rules, path, true))
                                                                          : Self.reloadData.members((rules, path)))
            }
        case let .failure(failure):
            lastLoadSucceeded = false
            core.log(.error, "rules: \(failure)\(initial ? "; running without rules" : "; keeping the active rules")")
            core.publishDurable(core.topics.rules, RulesLoading.payload(ts: moment.time, ok: false, source: path,
                                                                        active: core.engine.rules, failure: failure, warnings: []),
                                retain: true)
            if case let .request(request) = trigger { core.respond(to: request, failure: failure.description) }
        }
    }

    /// The answer to `reload_rules`: the rules now active (a failed reload is answered with the error).
    static let reloadData = PayloadFields<(rules: Rules, path: String)>([
        .init(.sha256, .string) { .string($0.rules.sha256) },
        .init(.source, JSONSchema.string.described("the rules file's path")) { .string($0.path) },
    ])

    /// `rules_set`'s answer: the active rules and whether they are new.
    static let setData = PayloadFields<(rules: Rules, path: String, changed: Bool)>([
        .init(.sha256, JSONSchema.string.described("of the rules now active")) { .string($0.rules.sha256) },
        .init(.source, JSONSchema.string.described("the rules file's path")) { .string($0.path) },
        .init(.changed, JSONSchema.boolean.described("false when these rules were already active")) { .bool($0.changed) },
    ])

    /// `rules_get`'s answer: the active rules as written.
    static let getData = PayloadFields<(rules: Rules, path: String)>([
        .init(.sha256, .string) { .string($0.rules.sha256) },
        .init(.source, JSONSchema.string.described("the rules file's path")) { .string($0.path) },
        .init(.rules, JSONSchema.string.described("the active rules file's text")) { .string(String(decoding: $0.rules.bytes, as: UTF8.self)) },
    ])
}
