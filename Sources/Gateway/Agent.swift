import DeviceLink
import EventLoop
import FoundationEssentials
import MQTTClient
import Proximity
import Simulator
import UCI
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `uwb2mqtt run`: the agent, on one event loop that wires the device link to the publisher.
///
/// Everything that happens — device events, MQTT events, timers, signals — is handled on the
/// thread that runs the loop, which is the only owner of the agent's state: a notification is
/// read, decided on and published in one wake-up, and what it published leaves in one flush.
/// It never exits because the device or the broker is missing or goes away; both retry with
/// back-off and say why, once per change of reason.
public final class Agent {
    private(set) var configuration: AgentConfiguration
    let topics: TopicTree
    let logger: Logger
    let scenario: Scenario?
    /// The decisions: what measurements, time and rules mean for the topics. This shell feeds it
    /// and publishes what it decided.
    private var core: AgentCore

    // State owned by the loop.
    private var publisher: Publisher!
    private var service: DeviceLinkService!
    private var deviceState: DeviceLinkState = .absent(nil)
    private var devicePort: String
    private var deviceInfo: DeviceInfo?
    private var capabilities: [ConfigTLV] = []
    private var counters = Counters()
    private var startedAt = Clocks.monotonic()
    private var brokerConnectedOnce = false
    private var lastBrokerProblem: String?
    private var rangingReached = 0
    private var homeAssistant: HomeAssistantDiscovery?
    private let systemd = SystemdNotifier()
    private var loop: EventLoop!
    private var stopRequested = false
    /// The proximity engine's tick, armed while a peer ranges (it has timeouts to notice).
    private var engineTickArmed = false

    private var rulesWatch: FileWatch
    /// Wakes the loop when the rules file may have changed (inotify on its directory).
    private var rulesFileEvents: FileChangeWatch?
    private var announced: Set<String> = []
    private var recorder: PacketRecorder?

    struct Counters {
        var framesReceived = 0
        var framesInvalid = 0
        var deviceReconnects = 0
        var brokerReconnects = 0
    }

    public init(configuration: AgentConfiguration, scenario: Scenario? = nil, logger: Logger) {
        self.configuration = configuration
        self.topics = configuration.topics
        self.logger = logger
        self.scenario = scenario
        devicePort = configuration.device.port
        if configuration.mqtt.homeAssistant {
            homeAssistant = HomeAssistantDiscovery(topics: topics, gatewayID: configuration.gateway.id)
        }
        var pose: GatewayPose?
        if let position = configuration.gateway.position {
            pose = GatewayPose(x: position.x, y: position.y, z: position.z, headingDeg: configuration.gateway.headingDegrees)
        }
        // A random id per run: event ids are `<gw>:<boot id>:<counter>`, unique across restarts.
        let bootID = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
        core = AgentCore(settings: AgentCore.Settings(topics: configuration.topics, eventIDPrefix: "\(configuration.topics.gateway):\(bootID)",
                                                      sessionID: configuration.device.sessionID, qosRanges: configuration.mqtt.qosRanges,
                                                      stateIntervalSeconds: configuration.mqtt.stateInterval.seconds),
                         peers: configuration.device.peers, identities: RulesLoading.identities(configuration), gateway: pose)
        core.keepsEvents = logger.threshold >= .debug
        rulesWatch = FileWatch(path: configuration.rules)
    }

    /// Runs until SIGINT or SIGTERM on the calling thread; returns the exit status (1 for a
    /// configuration problem found at start, 0 after a clean shutdown).
    public func run() -> Int32 {
        // The signals first, before any thread exists: every thread started later inherits the
        // blocked mask, so SIGTERM, SIGINT and SIGHUP reach the loop and nothing else.
        let signals: SignalDescriptor
        do {
            loop = try EventLoop()
            signals = try SignalDescriptor([SIGINT, SIGTERM, SIGHUP], on: loop) { [unowned self] number in handleSignal(number) }
        } catch {
            logger.error("cannot set up the event loop: \(error)")
            return 1
        }
        // A file-size limit (ulimit -f) must make journal writes fail with EFBIG, which the
        // journal reports, rather than kill the agent with SIGXFSZ.
        signal(SIGXFSZ, SIG_IGN)
        let mqtt = configuration.mqtt
        let clientConfiguration: MQTTConfiguration
        do {
            clientConfiguration = try BrokerConnection(
                url: mqtt.url, clientID: configuration.clientID, username: mqtt.username, passwordFile: mqtt.passwordFile,
                caFile: mqtt.caFile, certFile: mqtt.certFile, keyFile: mqtt.keyFile, keepaliveSeconds: mqtt.keepalive.seconds,
                will: MQTTWill(topic: topics.status, payload: Payloads.lastWill, qos: .atLeastOnce, retain: true)
            ).configuration(logger: logger)
        } catch {
            logger.error("\(configuration.source): \(error)")
            return 1
        }
        let client: MQTTClient
        let spool: Spool
        do {
            client = try MQTTClient(configuration: clientConfiguration, loop: loop) { [unowned self] in handleMQTT($0) }
            spool = try Spool(directory: mqtt.spoolDir, maximumBytes: mqtt.spoolMaxBytes.bytes)
        } catch {
            logger.error("\(error)")
            return 1
        }
        if let note = spool.recoveryNote { logger.warning(note) }
        if let path = configuration.record {
            do {
                recorder = try PacketRecorder(path: path, configuration: configuration)
                logger.info("recording every UCI packet to \(path)")
            } catch {
                logger.error("cannot record to \(path): \(error); running without recording")
            }
        }
        if !spool.isEmpty { logger.info("\(spool.count) journaled messages wait for the broker") }
        publisher = Publisher(client: client, spool: spool)

        var simulator: SimulatorHost?
        var simulatorDirectory: String?
        if let scenario {
            let directory = FileSystem.temporaryDirectory + "uwb2mqtt-simulator-\(getpid())"
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let log = logger
                simulator = try SimulatorHost(scenario: scenario, linkPath: directory + "/dwm3001c",
                                              gatewayPosition: configuration.gateway.position) { log.info("simulator: \($0)") }
                simulatorDirectory = directory
                devicePort = directory + "/dwm3001c"
                logger.info("simulated DWM3001C (scenario \(scenario.name ?? "unnamed")) at \(simulator!.slavePath)")
            } catch {
                logger.error("cannot start the simulator: \(error)")
                return 1
            }
        }

        service = DeviceLinkService(loop: loop, port: devicePort, configuration: configuration.device.session,
                                    options: TransportOptions(baudRate: configuration.device.baud)) { [unowned self] event in
            handleDevice(event)
        }

        loadRules(initial: true)
        logger.info("uwb2mqtt \(AgentVersion.agent) starting: gateway \(topics.gateway), device \(devicePort), broker \(clientConfiguration.broker)")
        startedAt = Clocks.monotonic()
        do {
            try client.subscribe(topic: topics.requestFilter, qos: .atLeastOnce)
            if let homeAssistant {
                try client.subscribe(topic: "homeassistant/status", qos: .atLeastOnce)
                try client.subscribe(topic: homeAssistant.ownConfigFilter, qos: .atLeastOnce)
            }
            try client.start()
        } catch {
            logger.error("cannot start the MQTT client: \(error)")
            return 1
        }
        service.start()
        scheduleMetrics()
        scheduleWatchdog()
        watchRulesFile()
        _ = systemd.ready(status: "ranging device \(devicePort), broker \(clientConfiguration.broker)")

        loop.run(until: { [unowned self] in stopRequested })

        _ = systemd.stopping()
        // The device first (no new measurements while shutting down), then `offline` with ts and
        // DISCONNECT (no will).
        service.stop()
        try? publisher.direct(topic: topics.status, payload: Payloads.render(Payloads.status(
            online: false, ts: Clocks.wall(), position: configuration.gateway.position,
            headingDegrees: configuration.gateway.headingDegrees)), retain: true)
        let undelivered = client.disconnect(timeout: .seconds(3))
        if undelivered > 0 { logger.warning("\(undelivered) messages were not acknowledged by the broker before shutdown") }
        // Loop-bound parts go before the loop does.
        rulesFileEvents = nil
        service = nil
        recorder?.close()
        simulator?.stop()
        if let simulatorDirectory { try? FileManager.default.removeItem(atPath: simulatorDirectory) }
        withExtendedLifetime(signals) {}
        return 0
    }

    private func handleSignal(_ number: Int32) {
        guard number == SIGHUP else {
            logger.info("stopping (signal \(number))")
            stopRequested = true
            return
        }
        _ = systemd.reloading()
        logger.info("SIGHUP: reloading \(configuration.source) and \(configuration.rules)")
        reloadConfiguration()
        loadRules(initial: false)
        _ = systemd.ready()
    }

    // MARK: device

    private func handleDevice(_ event: DeviceLinkService.Event) {
        switch event {
        case let .stateChanged(state, port):
            deviceState = state
            devicePort = port
            if state.name == "absent" {
                core.linkLost(.deviceAbsent, at: Clocks.wall())
                deliver()
            }
            if state == .ranging {
                rangingReached += 1
                if rangingReached > 1 { counters.deviceReconnects += 1 }
            }
            logger.info("device \(state)")
            publishDevice()
        case let .deviceIdentified(info, capabilities):
            deviceInfo = info
            self.capabilities = capabilities
            core.setDeviceHasAoA(deviceHasAoA)
            publishDevice()
        case let .measurements(info, receivedAt, raw):
            counters.framesReceived += 1
            record(raw, receivedAt)
            core.ranging(info, at: receivedAt)
            deliver()
            armEngineTick()
        case let .sessionStopped(reason):
            logger.debug("ranging session stopped (\(reason))")
            core.linkLost(.sessionStopped, at: Clocks.wall())
            deliver()
        case let .log(level, text):
            logger.log(level, text)
        case let .frame(raw, receivedAt, valid):
            counters.framesReceived += 1
            if !valid { counters.framesInvalid += 1 }
            record(raw, receivedAt)
        }
    }

    private func record(_ raw: RawMessage, _ receivedAt: Double) {
        guard let recorder else { return }
        do {
            try recorder.record(raw, receivedAt: receivedAt)
        } catch {
            logger.error("recording stopped: \(error)")
            recorder.close()
            self.recorder = nil
        }
    }

    private var deviceHasAoA: Bool {
        capabilities.first { $0.id == 0x13 }.map { $0.value.contains { $0 != 0 } } ?? false
    }

    /// Publishes what the core decided, each message with its delivery class, and empties its outbox.
    private func deliver() {
        for index in core.outbox.indices {
            let message = core.outbox[index]
            switch message.delivery {
            case let .live(qos):
                publisher.live(topic: message.topic, payload: message.payload, qos: qos)
            case let .durable(retain):
                if let problem = publisher.durable(topic: message.topic, payload: message.payload, retain: retain) { logger.warning(problem) }
            }
        }
        core.clearOutbox()
        // At debug level every event is also logged (kept typed by the core only then).
        for event in core.takeEvents() {
            logger.debug("event \(event.type.rawValue) \(event.peer.displayName) \(event.rule ?? "")")
        }
    }

    // MARK: configuration and rules

    /// SIGHUP re-reads the config file and applies what can change without a restart: the
    /// ranging session (peers added or removed on a one-to-many controller go through the
    /// multicast list, anything else restarts the session) and the rules path. The gateway id,
    /// broker and topics need a restart; a broken file keeps the running configuration.
    private func reloadConfiguration() {
        guard configuration.source != "<defaults>" else { return }
        let new: AgentConfiguration
        do {
            new = try AgentConfiguration.load(path: configuration.source)
        } catch {
            logger.error("config: \(error); keeping the running configuration")
            return
        }
        if new.device.session != configuration.device.session {
            logger.info("config: ranging session changed (peers \(new.device.peers.map(\.displayName).joined(separator: ", ")))")
            service.send(.reconfigure(new.device.session))
        }
        configuration.device = new.device
        core.setPeers(new.device.peers, sessionID: new.device.sessionID)
        if new.rules != configuration.rules {
            configuration.rules = new.rules
            rulesWatch = FileWatch(path: new.rules)
            watchRulesFile()
        }
        if new.gateway.id != configuration.gateway.id || new.mqtt.url != configuration.mqtt.url
            || new.mqtt.baseTopic != configuration.mqtt.baseTopic {
            logger.warning("config: gateway.id, mqtt.url and mqtt.base_topic take effect after a restart")
        }
        announceToHomeAssistant()
    }

    /// Loads the rules file: at start, on SIGHUP, on the reload_rules request and when the file
    /// changes. A file that fails validation never replaces the active rules; either way the
    /// outcome is published (retained) on the `rules` topic. Returns the failure, if any.
    @discardableResult
    private func loadRules(initial: Bool) -> RulesLoading.Failure? {
        let now = Clocks.wall()
        let identities = RulesLoading.identities(configuration)
        switch RulesLoading.load(path: configuration.rules) {
        case let .success(rules):
            let warnings = rules.warnings(for: identities)
            core.replaceRules(rules, at: now)
            deliver()
            logger.info("rules \(configuration.rules) \(initial ? "loaded" : "reloaded") (sha256 \(rules.sha256.prefix(12)))")
            for warning in warnings { logger.warning("rules: \(warning)") }
            durable(topics.rules, RulesLoading.payload(ts: now, ok: true, source: configuration.rules, activeSHA256: rules.sha256,
                                                       failure: nil, warnings: warnings), retain: true)
            announceToHomeAssistant()
            return nil
        case let .failure(failure):
            logger.error("rules: \(failure)\(initial ? "; running without rules" : "; keeping the active rules")")
            durable(topics.rules, RulesLoading.payload(ts: now, ok: false, source: configuration.rules, activeSHA256: core.engine.rules.sha256,
                                                       failure: failure, warnings: []), retain: true)
            return failure
        }
    }

    private func publishDevice() {
        let payload = Payloads.device(ts: Clocks.wall(), state: deviceState, port: devicePort, info: deviceInfo, capabilities: capabilities)
        durable(topics.device, payload, retain: true)
    }

    private func durable(_ topic: String, _ fields: [Field], retain: Bool) {
        if let problem = publisher.durable(topic: topic, payload: Payloads.render(fields), retain: retain) {
            logger.warning(problem)
        }
    }

    // MARK: MQTT

    private func handleMQTT(_ event: MQTTEvent) {
        switch event {
        case .connected:
            if brokerConnectedOnce { counters.brokerReconnects += 1 }
            brokerConnectedOnce = true
            lastBrokerProblem = nil
            logger.info("connected to the broker")
            do {
                try publisher.direct(topic: topics.status, payload: Payloads.render(Payloads.status(
                    online: true, ts: Clocks.wall(), position: configuration.gateway.position,
                    headingDegrees: configuration.gateway.headingDegrees)), retain: true)
            } catch {
                logger.warning("cannot publish the status: \(error)")
            }
            if let problem = publisher.brokerConnected() { logger.warning(problem) }
            publishDevice()
            announceToHomeAssistant()
        case let .disconnected(reason):
            publisher.brokerDisconnected()
            let text = "\(reason)"
            if case .requested = reason { return }
            if text != lastBrokerProblem {
                logger.warning("broker connection: \(text); retrying with back-off")
                lastBrokerProblem = text
            }
        case let .message(message):
            handleMessage(message)
        case let .published(messageID):
            if let problem = publisher.acknowledged(messageID) { logger.warning(problem) }
        case let .publishFailed(messageID, reason):
            logger.warning("the broker refused message \(messageID): \(reason)")
            _ = publisher.acknowledged(messageID)
        case .subscribed:
            break
        }
    }

    private func handleMessage(_ message: MQTTMessage) {
        if let name = topics.requestName(of: message.topic) {
            respond(to: name, payload: message.payload)
            return
        }
        guard let homeAssistant else { return }
        if message.topic == "homeassistant/status" {
            if message.text == "online" { announceToHomeAssistant() }
            return
        }
        // A retained discovery config of ours that no current peer owns: the peer left the config.
        if message.retained, !message.payload.isEmpty, message.topic.hasPrefix("homeassistant/"),
           message.topic.contains("/\(homeAssistant.nodeID)/") {
            let current = Set(homeAssistant.configs(peers: peerList, zones: core.engine.rules.zones.map(\.name)).map(\.0))
            if !current.contains(message.topic) {
                logger.info("removing the Home Assistant entity of a peer that left the config: \(message.topic)")
                if let problem = publisher.durable(topic: message.topic, payload: [], retain: true) { logger.warning(problem) }
            }
        }
    }

    private var peerList: [(name: String, segment: String)] {
        configuration.device.peers.map { ($0.displayName, $0.topicSegment) }
    }

    private func announceToHomeAssistant() {
        guard let homeAssistant, publisher != nil else { return }
        let configs = homeAssistant.configs(peers: peerList, zones: core.engine.rules.zones.map(\.name))
        for (topic, fields) in configs { durable(topic, fields, retain: true) }
        // Entities of zones that a reload removed: an empty retained config deletes them.
        let current = Set(configs.map(\.0))
        for topic in announced.subtracting(current) {
            if let problem = publisher.durable(topic: topic, payload: [], retain: true) { logger.warning(problem) }
        }
        announced = current
    }

    // MARK: requests

    private func respond(to name: String, payload: [UInt8]) {
        let response: [Field]
        switch Request.parse(name: name, payload: payload) {
        case let .failure(problem):
            // Debug, not info: a flood of bad requests must not flood the journal too.
            logger.debug("rejected request \(name): \(problem.message)")
            response = Payloads.response(id: problem.id, ok: false, error: problem.message)
        case let .success(request):
            response = answer(request)
        }
        publisher.response(topic: topics.response(name), payload: Payloads.render(response))
    }

    private func answer(_ request: Request) -> [Field] {
        func ok(_ data: [Field] = []) -> [Field] { Payloads.response(id: request.id, ok: true, data: .object(data)) }
        func failure(_ text: String) -> [Field] { Payloads.response(id: request.id, ok: false, error: text) }
        let deviceReachable = !(deviceState == .opening || deviceState.name == "absent")
        switch request.name! {
        case .ping:
            return ok([Field("version", .string(AgentVersion.agent)), Field("uptime_s", .int(Int64(Clocks.monotonic() - startedAt)))])
        case .state:
            let peers = core.engine.states(at: Clocks.wall()).map { FieldValue.object(ProximityPayloads.state($0)) }
            return ok([Field("device", .string(deviceState.name)), Field("peers", .list(peers))])
        case .sessionStart:
            guard deviceReachable else { return failure("no device (\(deviceState))") }
            service.send(.startRequested)
            return ok()
        case .sessionStop:
            guard deviceReachable else { return failure("no device (\(deviceState))") }
            service.send(.stopRequested)
            return ok()
        case .deviceReset:
            guard deviceReachable else { return failure("no device (\(deviceState))") }
            service.send(.resetRequested)
            return ok()
        case .reloadRules:
            if let problem = loadRules(initial: false) { return failure(problem.description) }
            return ok([Field("sha256", .string(core.engine.rules.sha256)), Field("source", .string(configuration.rules))])
        }
    }

    // MARK: timers

    /// The engine's tick (signal loss, dwell times, angles that age), every 100 ms while a peer
    /// ranges; not at all while none does, so that an idle agent sleeps.
    private func armEngineTick() {
        guard !engineTickArmed, core.needsTicks else { return }
        engineTickArmed = true
        // Between 100 and 150 ms: while tags range, the tick rides on a notification's wake-up.
        loop.schedule(after: 0.1, slack: 0.05) { [unowned self] in
            engineTickArmed = false
            core.tick(at: Clocks.wall())
            deliver()
            armEngineTick()
        }
    }

    /// Fed from the loop itself: if the loop stalls, systemd restarts the agent.
    private func scheduleWatchdog() {
        guard let interval = systemd.watchdogInterval else { return }
        _ = systemd.watchdog()
        loop.schedule(after: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18) { [unowned self] in
            scheduleWatchdog()
        }
    }

    /// An edit of the rules file is picked up when its directory says so; whether the file really
    /// changed (size, mtime, inode) decides.
    private func watchRulesFile() {
        let watch = FileChangeWatch(path: configuration.rules, loop: loop) { [unowned self] in
            guard rulesWatch.changed() else { return }
            logger.info("\(configuration.rules) changed on disk")
            loadRules(initial: false)
        }
        if let reason = watch.fallbackReason { logger.warning("\(reason); looking at \(configuration.rules) once a second instead") }
        rulesFileEvents = watch
    }

    private func scheduleMetrics() {
        loop.schedule(after: configuration.mqtt.metricsInterval.seconds) { [unowned self] in
            publishMetrics()
            scheduleMetrics()
        }
    }

    private func publishMetrics() {
        let now = Clocks.monotonic()
        let fields: [Field] = [
            Field("ts", .string(Timestamp.rfc3339(Clocks.wall()))), Field("uptime_s", .int(Int64(now - startedAt))),
            Field("frames_rx", .int(Int64(counters.framesReceived))), Field("frames_invalid", .int(Int64(counters.framesInvalid))),
            Field("measurements", .int(Int64(core.measurements))), Field("events", .int(Int64(core.events))),
            Field("publish_queue", .int(Int64(publisher.client.outstandingMessageCount))),
            Field("spooled", .int(Int64(publisher.spooled))), Field("dropped", .int(Int64(publisher.dropped))),
            Field("device_reconnects", .int(Int64(counters.deviceReconnects))),
            Field("broker_reconnects", .int(Int64(counters.brokerReconnects))),
        ]
        publisher.live(topic: topics.metrics, payload: Payloads.render(fields), qos: 0)
    }
}
