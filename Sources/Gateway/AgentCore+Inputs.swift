import DeviceLink
import MQTTClient
import Proximity
import UCI
import Vocabulary

/// The core's inputs other than the proximity decisions' own: what each one changes, publishes
/// and asks of the shell, and which components hear of it.
extension AgentCore {
    /// Decides on `input`, which reached the agent at `moment`: messages go to `outbox`, whatever
    /// else the shell is to do to `actions`.
    public mutating func handle(_ input: AgentInput, at moment: AgentMoment) {
        lastMoment = moment
        defer { nextWake = earliestDeadline() }
        switch input {
        case .started:
            status.startedAt = moment.monotonic
            tellComponents(moment) { $0.start(&$1, at: moment) }
        case let .device(event):
            deviceEvent(event, at: moment)
        case .brokerConnected:
            brokerConnected(at: moment)
        case let .brokerDisconnected(reason, largest):
            brokerDisconnected(reason, largestPublished: largest, at: moment)
        case let .message(message):
            receive(message, at: moment)
        case let .rulesLoaded(result, path, trigger):
            tellComponents(moment) { $0.rulesLoaded(result, path: path, trigger: trigger, &$1, at: moment) }
        case let .configurationReloaded(result):
            reloadConfiguration(result, at: moment)
        case let .timePassed(figures):
            status.publisher = figures
            tick(at: moment.time)
            tellComponents(moment) { $0.timePassed(&$1, at: moment) }
        case let .stalled(seconds):
            // The tags' measurements meanwhile wait in the device's buffer and are read now;
            // their silence until now is the agent's, not theirs.
            excuseSilence(until: moment.time)
            let line = "the agent did not run for \((seconds * 10).rounded() / 10) s; the tags' silence meanwhile does not count as signal loss"
            for text in status.stalls.lines(for: line, at: moment.monotonic) { log(.warning, text) }
        case .clockSteppedForward:
            excuseSilence(until: moment.time)
            log(.warning, "the system clock stepped forward; the skipped time does not count as silence of the tags")
        }
    }

    /// The earliest of the proximity engine's deadline (signal loss, dwell times, angles that
    /// age) and the components', in monotonic time.
    private func earliestDeadline() -> Double? {
        var wake = nextDeadline.map { lastMoment.monotonic + ($0 - lastMoment.time) }
        for component in components {
            if let deadline = component.nextDeadline, deadline < wake ?? .infinity { wake = deadline }
        }
        return wake
    }

    /// Topic filters to subscribe to: requests and what the components listen to.
    var subscriptions: [String] {
        [settings.topics.requestFilter] + components.flatMap(\.subscriptions)
    }

    // MARK: For the components

    /// Asks the shell to do something besides publishing.
    mutating func act(_ action: AgentAction) {
        actions.append(action)
    }

    mutating func log(_ level: LogLevel, _ text: String) {
        actions.append(.log(level, text))
    }

    /// An event or retained state (journaled while the broker is away).
    mutating func publishDurable(_ topic: String, _ fields: [JSONMember], retain: Bool) {
        outbox.append(topic: topic, delivery: .durable(retain: retain)) { $0.appendObject(fields) }
    }

    /// An empty retained message: deletes what the topic retained.
    mutating func clearRetained(_ topic: String) {
        outbox.append(topic: topic, delivery: .durable(retain: true), payload: [])
    }

    /// Live data (the newest per topic waits while the broker is away).
    mutating func publishLive(_ topic: String, _ fields: [JSONMember], qos: Int) {
        outbox.append(topic: topic, delivery: .live(qos: qos)) { $0.appendObject(fields) }
    }

    /// The answer to request `name`: on the requester's response topic when `reply` has one,
    /// else on `response/<name>`.
    mutating func respond(to name: String, via reply: Reply, _ fields: [JSONMember]) {
        outbox.append(topic: reply.topic ?? settings.topics.response(name),
                      delivery: .response(distinct: reply.isDistinct, correlationData: reply.correlationData)) { $0.appendObject(fields) }
    }

    /// A request or announcement dropped by a limit (a flood, an oversized name): `requests_dropped`.
    mutating func countDroppedRequest() {
        status.requestsDropped += 1
    }

    var topics: TopicTree { settings.topics }

    /// Seconds since the agent started.
    func uptime(at moment: AgentMoment) -> Double { moment.monotonic - status.startedAt }

    /// New rules took effect: the proximity decisions change, and the components hear of it.
    mutating func applyRules(_ rules: Rules, at moment: AgentMoment) {
        replaceRules(rules, at: moment.time)
        rulesChangedPending = true
    }

    /// Tells every component of a moment, in order; then, if new rules took effect meanwhile,
    /// tells them of that too. A component hears of a moment through `inout AgentCore`, so the
    /// list is taken out of the core while it is told: what it starts that concerns the other
    /// components (new rules) is told to all of them after.
    mutating func tellComponents(_ moment: AgentMoment, _ tell: (inout any AgentComponent, inout AgentCore) -> Void) {
        guard !components.isEmpty else { return }
        var list = components
        components = []
        for index in list.indices { tell(&list[index], &self) }
        components = list
        if rulesChangedPending {
            rulesChangedPending = false
            tellComponents(moment) { $0.rulesChanged(&$1, at: moment) }
        }
    }

    // MARK: Device

    private mutating func deviceEvent(_ event: DeviceReport, at moment: AgentMoment) {
        switch event {
        case let .stateChanged(state, port):
            let retrying = state == .opening && ["absent", "error"].contains(status.deviceStateSaid?.name)
            status.deviceState = state
            status.devicePort = port
            if state.name == "absent" { linkLost(.deviceAbsent, at: moment.time) }
            if state == .ranging {
                status.rangingReached += 1
                if status.rangingReached > 1 { status.deviceReconnects += 1 }
            }
            // Opening again after a failed open is the back-off's retry, not news: what it ends
            // in is (and is said only when it differs from what was said before it).
            if retrying {
                log(.debug, "device opening (retry)")
                return
            }
            if state != status.deviceStateSaid { log(.info, "device \(state)") }
            status.deviceStateSaid = state
            publishDevice(at: moment)
        case let .deviceIdentified(info, capabilities):
            status.deviceInfo = info
            status.capabilities = DeviceCapabilities(tlvs: capabilities, uciVersion: info.uciVersion)
            setDeviceHasAoA(status.capabilities.hasAoA)
            publishDevice(at: moment)
        case let .measurements(info, _, _, _):
            status.framesReceived += 1
            ranging(info, at: moment.time)
            tellComponents(moment) { $0.ranged(info, &$1, at: moment) }
        case let .sessionStopped(reason):
            log(.debug, "ranging session stopped (\(reason.map { "\($0)" } ?? "the device was initialised again"))")
            linkLost(.sessionStopped, at: moment.time)
        case let .requestedSession(id, news):
            tellComponents(moment) { $0.deviceNews(sessionID: id, news, &$1, at: moment) }
        case let .log(level, text):
            log(level, text)
        case let .frame(_, _, valid):
            status.framesReceived += 1
            if !valid { status.framesInvalid += 1 }
        }
    }

    /// The retained `device` payload, when its content changed since the last one (`always`:
    /// on a broker reconnection, for a broker that lost its retained messages).
    mutating func publishDevice(at moment: AgentMoment, always: Bool = false) {
        func payload(_ ts: Double) -> [JSONMember] {
            Payloads.device(ts: ts, state: status.deviceState, port: status.devicePort, info: status.deviceInfo, capabilities: status.capabilities)
        }
        let content = payload(0)
        guard always || content != status.devicePayloadPublished else { return }
        status.devicePayloadPublished = content
        publishDurable(settings.topics.device, payload(moment.time), retain: true)
    }

    // MARK: Broker

    private mutating func brokerConnected(at moment: AgentMoment) {
        let reconnected = status.brokerConnectedOnce
        if reconnected { status.brokerReconnects += 1 }
        status.brokerConnectedOnce = true
        status.brokerProblem.clear()
        status.brokerConnectedAt = moment.monotonic
        log(.info, "connected to the broker")
        // The first connection delivers what was journaled before it; a later one may reach a
        // broker that restarted without its retained messages.
        publishDevice(at: moment, always: reconnected)
        tellComponents(moment) { $0.brokerConnected(&$1, at: moment) }
    }

    private mutating func brokerDisconnected(_ reason: MQTTDisconnectReason, largestPublished: PublishedPacket?, at moment: AgentMoment) {
        if case .requested = reason { return }
        let text = "\(reason)"
        if status.brokerProblem.isNew(text) { log(.warning, "broker connection: \(text); retrying with back-off") }
        noteQuickDrop(largestPublished: largestPublished, at: moment)
    }

    /// A message of at least this many bytes is named when the broker closes the connection
    /// within seconds of it: far above what the agent publishes per measurement, at or below
    /// every packet limit a broker is likely to be given (the shipped mosquitto config: 64 KiB).
    static let largePacketBytes = 4096

    /// The broker gives no reason when it closes a connection in MQTT 3.1.1, and two causes make
    /// it close one within seconds, again and again: a packet over its limit (mosquitto's
    /// `max_packet_size`; the journal sends a retained message again at every reconnect) and
    /// another client connecting with the same client id (the two take turns). A large message
    /// sent on the connection is named, once per topic and size; three quick drops in a row
    /// without one suggest the client id.
    private mutating func noteQuickDrop(largestPublished largest: PublishedPacket?, at moment: AgentMoment) {
        guard let connectedAt = status.brokerConnectedAt else { return }
        status.brokerConnectedAt = nil
        guard moment.monotonic - connectedAt < 10 else {
            status.quickDrops = 0
            status.quickDropsAfterLargePackets = 0
            status.largePacketProblem.clear()
            return
        }
        status.quickDrops += 1
        if let largest, largest.bytes >= Self.largePacketBytes {
            status.quickDropsAfterLargePackets += 1
            if status.largePacketProblem.isNew("\(largest.topic) \(largest.bytes)") {
                log(.warning, "the broker closed the connection within seconds of connecting, after the agent sent a \(largest.bytes)-byte packet "
                    + "on \(largest.topic): a broker closes the connection of a client whose packet is over its limit (mosquitto: "
                    + "max_packet_size), and a retained message is sent again at every reconnect; raise the broker's limit")
            }
        }
        if status.quickDrops == 3, status.quickDropsAfterLargePackets == 0 {
            log(.warning, "the broker closed the connection within seconds of connecting, 3 times in a row, with no large packet sent: "
                + "another client may be using the client id \"\(configuration.clientID)\" (a second agent with this gateway id?); "
                + "give each its own mqtt.client_id")
        }
    }

    private mutating func receive(_ message: MQTTMessage, at moment: AgentMoment) {
        if let name = settings.topics.requestName(of: message.topic) { return request(name, message, at: moment) }
        var handled = false
        tellComponents(moment) { component, core in
            if !handled { handled = component.receive(message, &core, at: moment) }
        }
    }

    // MARK: Configuration

    /// SIGHUP re-read the config file: what can change without a restart is applied — the
    /// ranging session (peers added or removed on a one-to-many controller go through the
    /// multicast list, anything else restarts the session), the phones' settings and the rules
    /// path. The gateway id, broker and topics need a restart; a broken file keeps the running
    /// configuration (the rules are read again either way).
    private mutating func reloadConfiguration(_ result: Result<AgentConfiguration, any Error>, at moment: AgentMoment) {
        switch result {
        case let .failure(error):
            log(.error, "config: \(error); keeping the running configuration")
        case let .success(new):
            if new.device.session != configuration.device.session {
                log(.info, "config: ranging session changed (peers \(new.device.peers.map(\.displayName).joined(separator: ", ")))")
                act(.device(.reconfigure(new.device.session)))
            }
            if new.gateway.id != configuration.gateway.id || new.mqtt.broker.url != configuration.mqtt.broker.url
                || new.mqtt.broker.baseTopic != configuration.mqtt.broker.baseTopic {
                log(.warning, "config: gateway.id, mqtt.url and mqtt.base_topic take effect after a restart")
            }
            let device = new.device
            configuration.phones = new.phones
            configuration.rules = new.rules
            setPeers(device.peers, sessionID: device.sessionID, at: moment.time)
            configuration.device = device
        }
        tellComponents(moment) { $0.configurationReloaded(&$1, at: moment) }
    }
}
