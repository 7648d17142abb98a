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

    init(agent: Agent) {
        self.agent = agent
        discovery = HomeAssistantDiscovery(topics: agent.topics, gatewayID: agent.configuration.gateway.id)
    }

    var subscriptions: [String] { ["homeassistant/status", discovery.ownConfigFilter] }

    func receive(_ message: MQTTMessage) -> Bool {
        if message.topic == "homeassistant/status" {
            if message.text == "online" { announce() }
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

    private func currentConfigs() -> [(String, [Field])] {
        let peers = agent.configuration.device.peers.map { ($0.displayName, $0.topicSegment) }
        return discovery.configs(peers: peers, zones: agent.core.engine.rules.zones.map(\.name))
    }

    private func announce() {
        let configs = currentConfigs()
        for (topic, fields) in configs { agent.publishDurable(topic, fields, retain: true) }
        // Entities of zones that a reload removed: an empty retained config deletes them.
        let current = Set(configs.map(\.0))
        for topic in announced.subtracting(current) { agent.publishDurable(topic, payload: [], retain: true) }
        announced = current
    }
}
