import MQTTClient
import Vocabulary

/// Home Assistant MQTT discovery (`mqtt.home_assistant: true`): announces the gateway's entities,
/// again when Home Assistant comes back online, after every connect and whenever the peers or the
/// rules' zones change; removes the entities of zones and peers that went away.
struct HomeAssistantComponent: AgentComponent {
    private let discovery: HomeAssistantDiscovery
    /// The discovery topics announced last, to clear those a change removed.
    private var announced: Set<String> = []
    private var lastAnnouncedAt = -Double.infinity
    /// When the one re-announcement due after a burst of `online` messages is (monotonic).
    private var pendingAnnouncement: Double?
    /// Anyone on the broker can retain configs under our node: a line for each would flood the log.
    private var removalLog = LogThrottle()

    /// Home Assistant's `online` is answered by announcing every entity, which publishes and
    /// journals one message per entity: a flood of `online` is coalesced to one announcement
    /// per this many seconds.
    static let announceInterval = 1.0

    init(topics: TopicTree, gatewayID: String) {
        discovery = HomeAssistantDiscovery(topics: topics, gatewayID: gatewayID)
    }

    var subscriptions: [String] { ["homeassistant/status", discovery.ownConfigFilter] }
    var nextDeadline: Double? { pendingAnnouncement }

    mutating func receive(_ message: MQTTMessage, _ core: inout AgentCore, at moment: AgentMoment) -> Bool {
        if message.topic == "homeassistant/status" {
            if message.text == "online" { announceSoon(&core, at: moment) }
            return true
        }
        guard message.topic.hasPrefix("homeassistant/"), message.topic.contains("/\(discovery.nodeID)/") else { return false }
        // A retained discovery config of ours that no current peer owns: the peer left the config.
        if message.retained, !message.payload.isEmpty, !currentConfigs(core).map(\.0).contains(message.topic) {
            for line in removalLog.lines(for: "removing the Home Assistant entity of a peer that left the config: \(message.topic)",
                                         at: moment.monotonic) {
                core.log(.info, line)
            }
            core.clearRetained(message.topic)
        }
        return true
    }

    mutating func brokerConnected(_ core: inout AgentCore, at moment: AgentMoment) { announce(&core, at: moment) }
    mutating func rulesChanged(_ core: inout AgentCore, at moment: AgentMoment) { announce(&core, at: moment) }
    mutating func configurationReloaded(_ core: inout AgentCore, at moment: AgentMoment) { announce(&core, at: moment) }

    mutating func timePassed(_ core: inout AgentCore, at moment: AgentMoment) {
        guard let due = pendingAnnouncement, moment.monotonic >= due else { return }
        announce(&core, at: moment)
    }

    private func currentConfigs(_ core: AgentCore) -> [(String, [JSONMember])] {
        let peers = core.configuration.device.peers.map { ($0.displayName, $0.topicSegment) }
        return discovery.configs(peers: peers, zones: core.engine.rules.zones.map(\.name))
    }

    /// Announces now, or once at the end of the interval when an announcement was just made;
    /// what comes while one is pending changes nothing and is counted as dropped.
    private mutating func announceSoon(_ core: inout AgentCore, at moment: AgentMoment) {
        if moment.monotonic - lastAnnouncedAt >= Self.announceInterval, pendingAnnouncement == nil { return announce(&core, at: moment) }
        guard pendingAnnouncement == nil else { return core.countDroppedRequest() }
        pendingAnnouncement = lastAnnouncedAt + Self.announceInterval
    }

    private mutating func announce(_ core: inout AgentCore, at moment: AgentMoment) {
        pendingAnnouncement = nil
        lastAnnouncedAt = moment.monotonic
        let configs = currentConfigs(core)
        for (topic, fields) in configs { core.publishDurable(topic, fields, retain: true) }
        // Entities of zones that a reload removed: an empty retained config deletes them.
        let current = Set(configs.map(\.0))
        for topic in announced.subtracting(current) { core.clearRetained(topic) }
        announced = current
    }
}
