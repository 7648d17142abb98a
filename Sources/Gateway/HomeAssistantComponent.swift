import Vocabulary
import EventLoop
import MQTTClient
import UCI

/// Home Assistant MQTT discovery (`mqtt.home_assistant: true`): announces the gateway's entities,
/// again when Home Assistant comes back online, after every connect and whenever the peers or the
/// rules' zones change; removes the entities of zones and peers that went away.
final class HomeAssistantComponent: AgentComponent {
    private unowned let agent: Agent
    private let discovery: HomeAssistantDiscovery
    /// The discovery topics announced last, to clear those a change removed.
    private var announced: Set<String> = []
    private var lastAnnouncedAt = -Double.infinity
    /// The one re-announcement due after a burst of `online` messages.
    private var pendingAnnouncement: EventLoop.Timer?

    /// Home Assistant's `online` is answered by announcing every entity, which publishes and
    /// journals one message per entity: a flood of `online` is coalesced to one announcement
    /// per this many seconds.
    static let announceInterval = 1.0

    init(agent: Agent) {
        self.agent = agent
        discovery = HomeAssistantDiscovery(topics: agent.topics, gatewayID: agent.configuration.gateway.id)
    }

    var subscriptions: [String] { ["homeassistant/status", discovery.ownConfigFilter] }

    func receive(_ message: MQTTMessage) -> Bool {
        if message.topic == "homeassistant/status" {
            if message.text == "online" { announceSoon() }
            return true
        }
        guard message.topic.hasPrefix("homeassistant/"), message.topic.contains("/\(discovery.nodeID)/") else { return false }
        // A retained discovery config of ours that no current peer owns: the peer left the config.
        if message.retained, !message.payload.isEmpty, !currentConfigs().map(\.0).contains(message.topic) {
            agent.logger.info("removing the Home Assistant entity of a peer that left the config: \(message.topic)")
            agent.publishDurable(message.topic, payload: [], retain: true)
        }
        return true
    }

    func brokerConnected() { announce() }
    func rulesChanged() { announce() }
    func configurationReloaded() { announce() }

    private func currentConfigs() -> [(String, [JSONMember])] {
        let peers = agent.configuration.device.peers.map { ($0.displayName, $0.topicSegment) }
        return discovery.configs(peers: peers, zones: agent.core.engine.rules.zones.map(\.name))
    }

    func stop() {
        if let pendingAnnouncement { agent.loop.cancel(pendingAnnouncement) }
        pendingAnnouncement = nil
    }

    /// Announces now, or once at the end of the interval when an announcement was just made;
    /// what comes while one is pending changes nothing and is counted as dropped.
    private func announceSoon() {
        let now = Clocks.monotonic()
        if now - lastAnnouncedAt >= Self.announceInterval, pendingAnnouncement == nil { return announce() }
        guard pendingAnnouncement == nil else { return agent.countDroppedRequest() }
        pendingAnnouncement = agent.loop.schedule(at: lastAnnouncedAt + Self.announceInterval) { [unowned self] in
            pendingAnnouncement = nil
            announce()
        }
    }

    private func announce() {
        lastAnnouncedAt = Clocks.monotonic()
        let configs = currentConfigs()
        for (topic, fields) in configs { agent.publishDurable(topic, fields, retain: true) }
        // Entities of zones that a reload removed: an empty retained config deletes them.
        let current = Set(configs.map(\.0))
        for topic in announced.subtracting(current) { agent.publishDurable(topic, payload: [], retain: true) }
        announced = current
    }
}
