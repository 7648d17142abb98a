import EventLoop

/// `metrics` every `mqtt.metrics_interval`, and the systemd watchdog, fed from the loop itself:
/// if the loop stalls, the watchdog is not fed and systemd restarts the agent.
final class MetricsComponent: AgentComponent {
    private unowned let agent: Agent

    init(agent: Agent) {
        self.agent = agent
    }

    func start() {
        scheduleMetrics()
        feedWatchdog()
    }

    private func scheduleMetrics() {
        agent.loop.schedule(after: agent.configuration.mqtt.metricsInterval.seconds) { [unowned self] in
            agent.publishLive(agent.topics.metrics, Payloads.render(agent.metrics()), qos: 0)
            scheduleMetrics()
        }
    }

    private func feedWatchdog() {
        guard let interval = agent.systemd.watchdogInterval else { return }
        _ = agent.systemd.watchdog()
        agent.loop.schedule(after: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18) { [unowned self] in
            feedWatchdog()
        }
    }
}
