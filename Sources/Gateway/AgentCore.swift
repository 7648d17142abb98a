import DeviceLink
import Vocabulary
import Proximity
import UCI

/// What the agent decides, given what happened and when: the deterministic core.
///
/// Inputs (`AgentInput`: the device link's events and ranging rounds, MQTT events and requests,
/// rules and configuration read again, the passing of time, a stall, a clock step) come with the
/// moment passed in (`handle(_:at:)`); outputs are values: messages (topic, payload bytes,
/// delivery class) in `outbox` in the order they are to be published, and what the shell is to
/// do besides (`AgentAction`: device commands, log lines, files to read or watch) in `actions`.
/// When it wants to hear of time next is `nextWake`. Nothing here reads a clock, starts a thread
/// or does I/O, so `run` (through `Agent`), `replay` and the bench drive the same decisions and a
/// recording replays into the payloads the live agent published (ids and `ts` aside).
///
/// The proximity decisions are this file's; the features beside them (requests, rules, phones,
/// Home Assistant, metrics) are `AgentComponent`s that the core tells of each moment.
public struct AgentCore {
    /// What does not change between two inputs.
    public struct Settings: Sendable {
        public var topics: TopicTree
        /// `<gw>:<boot id>`: event ids are this prefix and a counter, unique across restarts.
        public var eventIDPrefix: String
        public var sessionID: UInt32
        public var qosRanges: Int
        public var stateIntervalSeconds: Double

        public init(topics: TopicTree, eventIDPrefix: String, sessionID: UInt32, qosRanges: Int, stateIntervalSeconds: Double) {
            self.topics = topics
            self.eventIDPrefix = eventIDPrefix
            self.sessionID = sessionID
            self.qosRanges = qosRanges
            self.stateIntervalSeconds = stateIntervalSeconds
        }
    }

    public private(set) var engine: ProximityEngine
    private(set) var settings: Settings
    /// Who the peers are and where each publishes.
    private var roster: PeerRoster
    /// The events published and dropped.
    private var ledger = EventLedger()
    /// The latest input time.
    private var latest = -Double.infinity
    /// The `ts` text of the last measurement: shared by the payloads of one notification.
    private var timestamps = TimestampMemo()
    /// `ranking/<rule>` topics of the current rules: a ranking can change with every measurement.
    private var rankingTopics: [String: String] = [:]
    public private(set) var measurements = 0
    /// Events published, and events each peer's `EventBudget` dropped (`events_dropped`).
    public var events: Int { ledger.published }
    public var eventsDropped: Int { ledger.dropped }

    /// The messages of the last input, oldest first.
    public internal(set) var outbox = Outbox()
    /// The proximity engine's outputs of one measurement: storage kept from one to the next.
    private var outputs: [ProximityOutput] = []
    /// The proximity events of the last input are kept typed, for observers that need them
    /// (replay's comparison and plot, the debug log): `takeEvents`.
    public var keepsEvents: Bool {
        get { ledger.keepsLog }
        set { ledger.keepsLog = newValue }
    }
    /// The shell records (`record:`): the inputs that do not come from the device are handed
    /// to it as `AgentAction.record`, so that a replay takes them too.
    public var recordsInputs = false

    /// The configuration in force: SIGHUP replaces its peers, phone settings and rules path.
    var configuration: AgentConfiguration
    /// The device, the broker connection and what was counted.
    var status: AgentStatus
    /// The features, in the order they hear of each moment (see `tellComponents`).
    var components: [any AgentComponent] = []
    /// New rules that took effect while components were being told of something: they hear of
    /// it next, after all of them heard of the first.
    var rulesChangedPending = false
    /// The limits requests pass before they are answered, and the rate of those that cost more
    /// than an answer.
    var requestIntake: RequestIntake
    var requestPacing = RequestPacing()
    /// What the shell is to do besides publishing, oldest first.
    var actions: [AgentAction] = []
    /// The moment of the latest input.
    var lastMoment = AgentMoment(time: 0, monotonic: 0)
    /// When the core wants to hear `timePassed` next (monotonic), nil while it waits for nothing:
    /// worked out at the end of every `handle`. Stored rather than computed, so that the shell
    /// reads it in place instead of copying the whole core to call a getter (measured: a copy and
    /// a destroy of the core per notification).
    public internal(set) var nextWake: Double?

    public init(settings: Settings, peers: [AgentConfiguration.Peer], identities: [PeerIdentity], gateway: GatewayPose?) {
        var configuration = AgentConfiguration(device: AgentConfiguration.Device(peers: peers))
        configuration.device.sessionID = settings.sessionID
        self.init(settings: settings, configuration: configuration, identities: identities, gateway: gateway)
    }

    private init(settings: Settings, configuration: AgentConfiguration, identities: [PeerIdentity], gateway: GatewayPose?) {
        let peers = configuration.device.peers
        self.configuration = configuration
        status = AgentStatus(devicePort: configuration.device.port)
        self.settings = settings
        roster = PeerRoster(peers: peers, topics: settings.topics)
        requestIntake = RequestIntake(responseTopics: ResponseTopicPolicy(topics: settings.topics,
                                                                          prefixes: configuration.mqtt.responseTopicPrefixes))
        engine = ProximityEngine(rules: Rules(), peers: identities, gateway: gateway, deviceHasAoA: false)
        engine.stateRepeatInterval = settings.stateIntervalSeconds
    }

    /// The core of an agent with `configuration`; event ids start with `eventIDPrefix`
    /// (`<gw>:<boot id>` in the agent, something fixed in tools and tests).
    public init(configuration: AgentConfiguration, eventIDPrefix: String) {
        var pose: GatewayPose?
        if let position = configuration.gateway.position {
            pose = GatewayPose(position: position, headingDeg: configuration.gateway.headingDegrees)
        }
        self.init(settings: Settings(topics: configuration.topics, eventIDPrefix: eventIDPrefix,
                                     sessionID: configuration.device.sessionID, qosRanges: configuration.mqtt.qosRanges,
                                     stateIntervalSeconds: configuration.mqtt.stateInterval.seconds),
                  configuration: configuration, identities: RulesLoading.identities(configuration), gateway: pose)
    }

    /// The core of the agent `run` starts: with its features.
    init(configuration: AgentConfiguration, eventIDPrefix: String, components: (AgentConfiguration) -> [any AgentComponent]) {
        self.init(configuration: configuration, eventIDPrefix: eventIDPrefix)
        self.components = components(configuration)
    }

    /// Hands over the actions decided so far and forgets them.
    mutating func takeActions() -> [AgentAction] {
        defer { actions.removeAll() }
        return actions
    }

    /// Hands over the outbox's messages as values and empties it.
    public mutating func take() -> [Outbox.Message] {
        defer { outbox.removeAll() }
        return outbox.messages
    }

    /// Empties the outbox after the caller published it in place (`outbox.forEach`).
    public mutating func clearOutbox() {
        outbox.removeAll()
    }

    /// Empties the typed event log.
    public mutating func takeEvents() -> [ProximityEvent] {
        ledger.takeLog()
    }

    // MARK: Inputs

    /// A ranging round (SESSION_INFO_NTF of our session), received at `time` (wall clock).
    ///
    /// Time has passed up to `time` before the round counts: what became due since the last input
    /// (a dwell that completed, an angle that aged) is decided first, on the state before the
    /// round. So the outcome depends on the rounds and their times only, not on when a timer
    /// happened to fire in between — the same live and in a replay.
    mutating func ranging(_ info: SessionInfo, at time: Double) {
        let time = advance(to: time)
        publish(engine.tick(at: time))
        for measurement in info.twoWayMeasurements where !roster.hasDeparted(measurement.macAddress) {
            range(measurement, sequence: info.sequenceNumber, at: time)
        }
        var produced = takeOutputStorage()
        engine.endRound(at: time, into: &produced)
        publish(draining: &produced)
        outputs = produced
    }

    /// Time passed: signal loss, dwell times, angles that age.
    mutating func tick(at time: Double) {
        publish(engine.tick(at: advance(to: time)))
    }

    /// The agent did not run until `time` (a stall of its own, or the system clock stepped
    /// forward): the silence of the tags meanwhile is not theirs and loses no link.
    mutating func excuseSilence(until time: Double) {
        engine.excuseSilence(until: advance(to: time))
    }

    /// When `tick` changes something next (the engine's deadline), nil while no peer ranges: the
    /// shell sets its timer for then.
    public var nextDeadline: Double? { engine.nextDeadline }

    /// Ranging stopped for every peer: the device stopped the session, or went away.
    mutating func linkLost(_ cause: LossCause, at time: Double) {
        let time = advance(to: time)
        guard roster.hasPhones, cause == .sessionStopped else {
            return publish(engine.linkLost(peer: nil, cause: cause, at: time))
        }
        // Phones range in sessions of their own, which the configured one's stop leaves running.
        for peer in engine.peers where !roster.isPhone(peer.address) {
            publish(engine.linkLost(peer: peer, cause: cause, at: time))
        }
    }

    /// New rules took effect (at start, SIGHUP, a request or a file change).
    public mutating func replaceRules(_ rules: Rules, at time: Double) {
        // The old rules' too: a ranking that went is published once more, empty.
        rankingTopics.removeAll()
        for rule in engine.rules.rankings + rules.rankings { rankingTopics[rule.name] = settings.topics.ranking(rule.name) }
        publish(engine.replaceRules(rules, at: advance(to: time)))
    }

    /// The device's capabilities: an angle is reported only by a device with AoA.
    public mutating func setDeviceHasAoA(_ hasAoA: Bool) {
        engine.deviceHasAoA = hasAoA
    }

    /// A new peer list (SIGHUP) at `time`: names and topics are worked out again.
    ///
    /// A peer whose topics change — removed from the list, renamed, or seen on air and now named —
    /// would leave its retained `state` on the broker for good: an empty retained message on the old
    /// topic deletes it (journaled like any retained state, so a broker outage does not lose it).
    /// The engine forgets such a peer, and one renamed under the same topic: its next measurement
    /// starts it afresh under its new name and topic.
    mutating func setPeers(_ peers: [AgentConfiguration.Peer], sessionID: UInt32, at time: Double) {
        configuration.device.peers = peers
        configuration.device.sessionID = sessionID
        settings.sessionID = sessionID
        var known = roster.configured
        for peer in engine.peers where !known.contains(peer.address) { known.append(peer.address) }
        var old = roster.replaceConfigured(peers)
        var forgotten: [MacAddress] = []
        for address in known {
            let before = old.route(for: address), after = roster.route(for: address)
            if before.state != after.state {
                outbox.append(topic: before.state, delivery: .durable(retain: true), payload: [])
            }
            if before.state != after.state || before.identity != after.identity { forgotten.append(address) }
        }
        for address in forgotten { ledger.forget(address) }
        publish(engine.forget(forgotten, at: advance(to: time)))
    }

    /// A phone ranges under `name` with `address` in session `sessionID` (a `phone_session`
    /// request). Its state topic is its name's: when the name ranged before under another
    /// address, that tracker is forgotten (its retained state is the name's and stays, to be
    /// overwritten by the new session's first state).
    public mutating func addPhone(name: String, address: UInt16, sessionID: UInt32, at time: Double) {
        let time = advance(to: time)
        if recordsInputs { act(.record(.phoneJoined(name: name, address: address, sessionID: sessionID), at: time)) }
        let stale = roster.addPhone(name: name, address: address, sessionID: sessionID)
        for address in stale { ledger.forget(address) }
        publish(engine.forget(stale, at: time))
    }

    /// A phone ranges on under its name at a new address, in a new session (an iPhone's new
    /// NISession run): the name's route and peer state move with it, with no event in between.
    public mutating func movePhone(name: String, from old: UInt16, to new: UInt16, sessionID: UInt32, at time: Double) {
        let time = advance(to: time)
        if recordsInputs { act(.record(.phoneMoved(name: name, from: old, to: new, sessionID: sessionID), at: time)) }
        roster.movePhone(name: name, from: old, to: new, sessionID: sessionID)
        ledger.forget(.short(old))
        engine.readdress(.short(old), to: .short(new))
    }

    /// A phone's session ended: its link is lost (`session_stopped`), also when it never ranged
    /// (let go after `phones.no_ranging_timeout`); it keeps its name until the name comes back
    /// with a new address.
    public mutating func phoneLeft(address: UInt16, at time: Double) {
        let time = advance(to: time)
        if recordsInputs { act(.record(.phoneLeft(address: address), at: time)) }
        roster.phoneLeft(address)
        publish(engine.linkLost(peer: roster.route(for: .short(address)).identity, cause: .sessionStopped, at: time, endsConnecting: true))
    }

    /// A phone's app reported the angle at which it sees the gateway, measured at `measuredAt`
    /// (`phone/<name>/report`, already checked against its session): the phone at `address` has
    /// a direction from it while it is fresh.
    public mutating func phoneReported(address: UInt16, azimuthDeg: Double?, elevationDeg: Double?, measuredAt: Double, at time: Double) {
        let time = advance(to: time)
        status.phoneReports += 1
        if recordsInputs {
            act(.record(.phoneReported(address: address, azimuthDeg: azimuthDeg, elevationDeg: elevationDeg, measuredAt: measuredAt), at: time))
        }
        let identity = roster.route(for: .short(address)).identity
        publish(engine.phoneAngle(peer: identity, azimuthDeg: azimuthDeg, elevationDeg: elevationDeg, measuredAt: measuredAt, at: time))
    }

    /// A phone's report that counts for nothing: `phone_reports_dropped`.
    mutating func phoneReportDropped() {
        status.phoneReportsDropped += 1
    }

    /// Time as the core sees it never runs backwards: an input dated before the latest one
    /// counts as simultaneous with it, so every peer's events stay in order.
    private mutating func advance(to time: Double) -> Double {
        if time > latest { latest = time }
        return latest
    }

    // MARK: Decisions

    private mutating func range(_ m: TwoWayRangingMeasurement, sequence: UInt32, at ts: Double) {
        measurements += 1
        let route = roster.route(for: m.macAddress)
        var produced = takeOutputStorage()
        let ranging = engine.ingestWithinRound(peer: route.identity, measurement: m, at: ts, into: &produced)
        let angles = (m.azimuthDegrees(deviceHasAoA: engine.deviceHasAoA), m.elevationDegrees(deviceHasAoA: engine.deviceHasAoA))
        let filtered = m.validDistanceMeters.map { ranging ?? $0 }
        let session = roster.session(of: m.macAddress, configured: settings.sessionID)
        let text = timestamps.rfc3339(ts)
        outbox.append(topic: route.range, delivery: .live(qos: settings.qosRanges)) { json in
            Payloads.range(into: &json, ts: text, peer: route.rangePeer, measurement: m, session: session, sequence: sequence,
                           filteredDistance: filtered, angles: angles)
        }
        publish(draining: &produced, of: route)
        outputs = produced
    }

    /// The storage kept for the engine's outputs, empty, in hand: the core passes it to the
    /// engine and to `publish(draining:of:)`, and puts it back.
    private mutating func takeOutputStorage() -> [ProximityOutput] {
        var storage: [ProximityOutput] = []
        swap(&storage, &outputs)
        return storage
    }

    private mutating func publish(_ outputs: [ProximityOutput]) {
        var outputs = outputs
        publish(draining: &outputs)
    }

    /// What the proximity engine produced, each on its topic with its delivery class. The payloads
    /// of every measurement (feedback, position, ranking) are written straight into the outbox.
    /// The outputs are moved out of `outputs` one by one, which is left empty with its storage: a
    /// copy of a feedback retains each of its parts, and dropping the outputs afterwards releases
    /// them. `known`: the route of the peer a measurement's outputs are nearly all about, looked
    /// up once.
    private mutating func publish(draining outputs: inout [ProximityOutput], of known: PeerRoute? = nil) {
        func route(for address: MacAddress) -> PeerRoute {
            if let known, known.identity.address == address { return known }
            return roster.route(for: address)
        }
        outputs.reverse()
        while let output = outputs.popLast() {
            switch consume output {
            case let .state(state):
                let text = timestamps.rfc3339(state.ts)
                let route = route(for: state.peer.address)
                let peer = route.identity == state.peer ? route.peer : ProximityPayloads.peer(state.peer)
                outbox.append(topic: route.state, delivery: .durable(retain: true)) { json in
                    ProximityPayloads.state(state, ts: text, peer: peer, into: &json)
                }
            case let .feedback(feedback):
                let text = timestamps.rfc3339(feedback.ts)
                let route = route(for: feedback.peer.address)
                let peer = route.identity == feedback.peer ? route.peer : ProximityPayloads.peer(feedback.peer)
                outbox.append(topic: route.feedback, delivery: .live(qos: 0)) { json in
                    ProximityPayloads.feedback(feedback, ts: text, peer: peer, into: &json)
                }
            case let .position(position):
                let text = timestamps.rfc3339(position.ts)
                let route = route(for: position.peer.address)
                let peer = route.identity == position.peer ? route.peer : ProximityPayloads.peer(position.peer)
                outbox.append(topic: route.position, delivery: .live(qos: 0)) { json in
                    ProximityPayloads.position(position, ts: text, peer: peer, into: &json)
                }
            case let .event(event):
                switch ledger.admit(event) {
                case let .failure(drop):
                    for text in drop.lines { log(.warning, text) }
                case let .success(counter):
                    durable(route(for: event.peer.address).event,
                            ProximityPayloads.event(event, id: "\(settings.eventIDPrefix):\(counter)"), retain: false)
                }
            case let .ranking(ranking):
                let text = timestamps.rfc3339(ranking.ts)
                outbox.append(topic: rankingTopics[ranking.rule] ?? settings.topics.ranking(ranking.rule), delivery: .durable(retain: true)) { json in
                    ProximityPayloads.ranking(ranking, ts: text, into: &json)
                }
            }
        }
    }

    private mutating func durable(_ topic: String, _ fields: [JSONMember], retain: Bool) {
        outbox.append(topic: topic, delivery: .durable(retain: retain)) { $0.appendObject(fields) }
    }
}
