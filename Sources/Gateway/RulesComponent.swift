import EventLoop

/// The rules file: loaded at start and again on SIGHUP, on the `reload_rules` request and when
/// the file changes on disk. A file that fails validation never replaces the active rules; either
/// way the outcome is published (retained) on the `rules` topic.
final class RulesComponent: AgentComponent {
    private unowned let agent: Agent
    /// Whether the file really changed since it was last read (size, mtime, inode).
    private var fileState: FileWatch
    /// Wakes the loop when the file may have changed (inotify on its directory).
    private var fileEvents: FileChangeWatch?

    init(agent: Agent) {
        self.agent = agent
        fileState = FileWatch(path: agent.configuration.rules)
    }

    func start() {
        load(initial: true)
        watchFile()
    }

    /// SIGHUP reads the rules again, from a new path if the configuration names one.
    func configurationReloaded() {
        if fileState.path != agent.configuration.rules {
            fileState = FileWatch(path: agent.configuration.rules)
            watchFile()
        }
        load(initial: false)
    }

    /// Loads the rules now (the `reload_rules` request); returns the failure, if any.
    func reload() -> RulesLoading.Failure? {
        load(initial: false)
    }

    /// Releases the file watch (bound to the loop, which must outlive it).
    func stop() {
        fileEvents = nil
    }

    private func watchFile() {
        let path = agent.configuration.rules
        let watch = FileChangeWatch(path: path, loop: agent.loop) { [unowned self] in
            guard fileState.changed() else { return }
            agent.logger.info("\(path) changed on disk")
            load(initial: false)
        }
        if let reason = watch.fallbackReason { agent.logger.warning("\(reason); looking at \(path) once a second instead") }
        fileEvents = watch
    }

    @discardableResult
    private func load(initial: Bool) -> RulesLoading.Failure? {
        let now = agent.now()
        let path = agent.configuration.rules
        switch RulesLoading.load(path: path) {
        case let .success(rules):
            let warnings = rules.warnings(for: RulesLoading.identities(agent.configuration))
            agent.replaceRules(rules, at: now)
            agent.logger.info("rules \(path) \(initial ? "loaded" : "reloaded") (sha256 \(rules.sha256.prefix(12)))")
            for warning in warnings { agent.logger.warning("rules: \(warning)") }
            agent.publishDurable(agent.topics.rules, RulesLoading.payload(ts: now, ok: true, source: path, active: rules,
                                                                          failure: nil, warnings: warnings), retain: true)
            agent.rulesChanged()
            return nil
        case let .failure(failure):
            agent.logger.error("rules: \(failure)\(initial ? "; running without rules" : "; keeping the active rules")")
            agent.publishDurable(agent.topics.rules, RulesLoading.payload(ts: now, ok: false, source: path,
                                                                          active: agent.core.engine.rules,
                                                                          failure: failure, warnings: []), retain: true)
            return failure
        }
    }
}
