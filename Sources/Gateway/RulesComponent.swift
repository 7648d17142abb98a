import Proximity
import Vocabulary

/// The rules file: read at start and again on SIGHUP, on the `reload_rules` request and when the
/// file changes on disk (the shell watches it and reads it; this decides what the outcome
/// means). A file that fails validation never replaces the active rules; either way the outcome
/// is published (retained) on the `rules` topic.
struct RulesComponent: AgentComponent {
    var requests: [Request.Name] { [.reloadRules] }

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

    /// Reloads on request each publish the retained `rules` and re-announce Home Assistant
    /// entities: at most one a second (`RequestPacing`).
    mutating func answer(_ request: Request, _ core: inout AgentCore, at moment: AgentMoment) {
        guard core.paced(request, at: moment) else { return }
        core.act(.loadRules(path: core.configuration.rules, trigger: .request(request)))
    }

    mutating func rulesLoaded(_ result: Result<Rules, RulesLoading.Failure>, path: String, trigger: RulesTrigger,
                              _ core: inout AgentCore, at moment: AgentMoment) {
        let initial = if case .start = trigger { true } else { false }
        switch result {
        case let .success(rules):
            let warnings = rules.warnings(for: RulesLoading.identities(core.configuration))
            core.applyRules(rules, at: moment)
            core.log(.info, "rules \(path) \(initial ? "loaded" : "reloaded") (sha256 \(rules.sha256.prefix(12)))")
            for warning in RulesLoading.summarised(warnings) { core.log(.warning, "rules: \(warning)") }
            core.publishDurable(core.topics.rules, RulesLoading.payload(ts: moment.time, ok: true, source: path, active: rules,
                                                                        failure: nil, warnings: warnings), retain: true)
            if case let .request(request) = trigger {
                core.respond(to: request, data: Self.reloadData.members((rules, path)))
            }
        case let .failure(failure):
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
}
