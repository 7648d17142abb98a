import Vocabulary
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
///
/// The shell owns the loop, the broker client and publisher, the device link and the core; the
/// features beside them (rules, requests, Home Assistant, metrics) are `AgentComponent`s.
public final class Agent {
    private(set) var configuration: AgentConfiguration
    let topics: TopicTree
    let logger: Logger
    let scenario: Scenario?
    /// The decisions: what measurements, time and rules mean for the topics. This shell feeds it
    /// and publishes what it decided.
    private(set) var core: AgentCore

    // State owned by the loop.
    private var publisher: Publisher!
    private var service: DeviceLinkService!
    private(set) var deviceState: DeviceLinkState = .absent(nil)
    private var devicePort: String
    private var deviceInfo: DeviceInfo?
    private var capabilities = DeviceCapabilities(tlvs: [], uciVersion: nil)
    private var counters = Counters()
    private var startedAt = Clocks.monotonic()
    private var brokerConnectedOnce = false
    private var brokerConnectedAt: Double?
    private var quickDrops = 0
    private var brokerProblem = RepeatedReason()
    private var rangingReached = 0
    let systemd = SystemdNotifier()
    private(set) var loop: EventLoop!
    /// The features beside the core, in the order they hear of each moment.
    private var components: [AgentComponent] = []
    private var rules: RulesComponent!
    private(set) var phones: PhonesComponent!
    private var stopRequested = false
    /// The time every input to the core is dated with: the wall clock, never running backwards.
    private var clock = AgentClock()
    private var stalls = LogThrottle(window: 60)
    private var publishProblems = LogThrottle()
    /// The longest a shutdown waits for the device's session to wind down: two commands of the
    /// session's wind-down timeout each, and some slack; far below systemd's TimeoutStopSec.
    private static let deviceShutdownLimit = 2.5
    /// The timer for the core's next deadline and that deadline (agent time), while one is set.
    private var engineTimer: (timer: EventLoop.Timer, deadline: Double)?

    private var recorder: PacketRecorder?

    struct Counters {
        var framesReceived = 0
        var framesInvalid = 0
        var deviceReconnects = 0
        var brokerReconnects = 0
        var requestsDropped = 0
    }

    public init(configuration: AgentConfiguration, scenario: Scenario? = nil, logger: Logger) {
        self.configuration = configuration
        self.topics = configuration.topics
        self.logger = logger
        self.scenario = scenario
        devicePort = configuration.device.port
        // A random id per run: event ids are `<gw>:<boot id>:<counter>`, unique across restarts.
        let bootID = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
        core = AgentCore(configuration: configuration, eventIDPrefix: "\(configuration.topics.gateway):\(bootID)")
        core.keepsEvents = logger.threshold >= .debug
    }

    /// The features, each one file: Home Assistant before the rules, so that a SIGHUP announces
    /// the new peers before the reloaded rules announce their zones.
    private func makeComponents() -> [AgentComponent] {
        rules = RulesComponent(agent: self)
        phones = PhonesComponent(agent: self)
        var list: [AgentComponent] = []
        if configuration.mqtt.homeAssistant { list.append(HomeAssistantComponent(agent: self)) }
        list += [rules, RequestsComponent(agent: self), phones, MetricsComponent(agent: self)]
        return list
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
            loop.onLateWake = { [unowned self] seconds in loopWokeLate(by: seconds) }
        } catch {
            logger.error("cannot set up the event loop: \(error)")
            return 1
        }
        // A file-size limit (ulimit -f) must make journal writes fail with EFBIG, which the
        // journal reports, rather than kill the agent with SIGXFSZ.
        signal(SIGXFSZ, SIG_IGN)
        let broker = configuration.mqtt.broker
        let clientConfiguration: MQTTConfiguration
        do {
            clientConfiguration = try BrokerConnection(
                broker: broker, clientID: configuration.clientID,
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
            spool = try Spool(directory: configuration.mqtt.spoolDir, maximumBytes: configuration.mqtt.spoolMaxBytes.bytes)
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

        components = makeComponents()
        startedAt = Clocks.monotonic()
        for component in components { component.start() }
        logger.info("uwb2mqtt \(AgentVersion.agent) starting: gateway \(topics.gateway), device \(devicePort), broker \(clientConfiguration.broker)")
        for warning in configuration.warnings { logger.warning("\(configuration.source): \(warning)") }
        do {
            for component in components {
                for filter in component.subscriptions { try client.subscribe(topic: filter, qos: .atLeastOnce) }
            }
            try client.start()
        } catch {
            logger.error("cannot start the MQTT client: \(error)")
            return 1
        }
        service.start()
        _ = systemd.ready(status: "ranging device \(devicePort), broker \(clientConfiguration.broker)")

        loop.run(until: { [unowned self] in stopRequested })

        _ = systemd.stopping()
        // The device first: its session is stopped and deinitialised (each command waited for
        // briefly; an unplugged device not at all) and no measurement comes after this, while the
        // broker still hears the device state. Then `offline` with ts and DISCONNECT (no will).
        service.shutDown()
        _ = loop.run(until: { [unowned self] in service.isShutDown }, deadline: Clocks.monotonic() + Self.deviceShutdownLimit)
        service.stop()
        try? publisher.direct(topic: topics.status, payload: Payloads.render(Payloads.status(
            online: false, ts: now(), position: configuration.gateway.position,
            headingDegrees: configuration.gateway.headingDegrees, rangingInterval: configuration.device.rangingInterval)), retain: true)
        let undelivered = client.disconnect(timeout: .seconds(3))
        if undelivered > 0 { logger.warning("\(undelivered) messages were not acknowledged by the broker before shutdown") }
        // Loop-bound parts go before the loop does.
        for component in components { component.stop() }
        components = []
        rules = nil
        phones = nil
        service = nil
        recorder?.close()
        simulator?.stop()
        if let simulatorDirectory { try? FileManager.default.removeItem(atPath: simulatorDirectory) }
        withExtendedLifetime(signals) {}
        return 0
    }

    /// Now in the agent's time (see `AgentClock`), or the agent's time of readings of the two
    /// clocks taken together (a measurement's receive time). When the system clock stepped
    /// forward, the time it skipped is not taken for silence of the tags.
    func now(wall: Double = Clocks.wall(), monotonic: Double = Clocks.monotonic()) -> Double {
        let (time, steppedForward) = clock.time(monotonic: monotonic, wall: wall)
        if steppedForward {
            logger.warning("the system clock stepped forward; the skipped time does not count as silence of the tags")
            core.excuseSilence(until: time)
        }
        return time
    }

    /// The loop woke up late: the agent did not run (stopped, starved, or something blocked it).
    /// The tags' measurements meanwhile wait in the device's buffer and are read now; their
    /// silence until now is the agent's, not theirs.
    private func loopWokeLate(by seconds: Double) {
        core.excuseSilence(until: now())
        let line = "the agent did not run for \((seconds * 10).rounded() / 10) s; the tags' silence meanwhile does not count as signal loss"
        for text in stalls.lines(for: line, at: Clocks.monotonic()) { logger.warning(text) }
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
        for component in components { component.configurationReloaded() }
        _ = systemd.ready()
    }

    // MARK: device

    private func handleDevice(_ event: DeviceLinkService.Event) {
        switch event {
        case let .stateChanged(state, port):
            deviceState = state
            devicePort = port
            if state.name == "absent" {
                core.linkLost(.deviceAbsent, at: now())
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
            self.capabilities = DeviceCapabilities(tlvs: capabilities, uciVersion: info.uciVersion)
            core.setDeviceHasAoA(self.capabilities.hasAoA)
            publishDevice()
        case let .measurements(info, receivedAt, monotonic, raw):
            counters.framesReceived += 1
            record(raw, receivedAt)
            core.ranging(info, at: now(wall: receivedAt, monotonic: monotonic))
            deliver()
            phones.ranged(info)
        case let .sessionStopped(reason):
            logger.debug("ranging session stopped (\(reason))")
            core.linkLost(.sessionStopped, at: now())
            deliver()
        case let .requestedSession(id, news):
            phones.deviceNews(sessionID: id, news)
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

    /// Publishes what the core decided, each message with its delivery class, and empties its
    /// outbox; then follows the core's next deadline, which the input may have moved.
    private func deliver() {
        core.outbox.forEach { topic, payload, delivery in
            switch delivery {
            case let .live(qos):
                publisher.live(topic: topic, payload: payload, qos: qos)
            case let .durable(retain):
                if let problem = publisher.durable(topic: topic, payload: payload, retain: retain) { logger.warning(problem) }
            }
        }
        core.clearOutbox()
        // At debug level every event is also logged (kept typed by the core only then).
        for event in core.takeEvents() {
            logger.debug("event \(event.type.rawValue) \(event.peer.displayName) \(event.rule ?? "")")
        }
        armEngineTick()
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
        configuration.phones = new.phones
        configuration.rules = new.rules
        core.setPeers(new.device.peers, sessionID: new.device.sessionID, at: now())
        deliver()
        if new.gateway.id != configuration.gateway.id || new.mqtt.broker.url != configuration.mqtt.broker.url
            || new.mqtt.broker.baseTopic != configuration.mqtt.broker.baseTopic {
            logger.warning("config: gateway.id, mqtt.url and mqtt.base_topic take effect after a restart")
        }
    }

    // MARK: for the components

    /// New rules from the rules component: the core applies them, what changed is published.
    func replaceRules(_ newRules: Rules, at time: Double) {
        core.replaceRules(newRules, at: time)
        deliver()
    }

    func rulesChanged() {
        for component in components { component.rulesChanged() }
    }

    /// The `reload_rules` request.
    func reloadRules() -> RulesLoading.Failure? {
        rules.reload()
    }

    func sendToDevice(_ event: DeviceSession.Event) {
        service.send(event)
    }

    /// A phone ranges under `name` (a `phone_session`): its rounds are published under it.
    func phoneJoined(name: String, address: UInt16, sessionID: UInt32, at time: Double) {
        core.addPhone(name: name, address: address, sessionID: sessionID, at: time)
        deliver()
    }

    /// A phone's session ended: its link is lost.
    func phoneLeft(address: UInt16, at time: Double) {
        core.phoneLeft(address: address, at: time)
        deliver()
    }

    var uptimeSeconds: Double { Clocks.monotonic() - startedAt }

    /// Publishes an event or retained state (journaled while the broker is away).
    func publishDurable(_ topic: String, _ fields: [JSONMember], retain: Bool) {
        publishDurable(topic, payload: Payloads.render(fields), retain: retain)
    }

    func publishDurable(_ topic: String, payload: [UInt8], retain: Bool) {
        if let problem = publisher.durable(topic: topic, payload: payload[...], retain: retain) { logger.warning(problem) }
    }

    /// Publishes live data (the newest per topic waits while the broker is away).
    func publishLive(_ topic: String, _ payload: [UInt8], qos: Int) {
        publisher.live(topic: topic, payload: payload[...], qos: qos)
    }

    /// Publishes the answer to a request.
    func publishResponse(_ topic: String, payload: [UInt8]) {
        publisher.response(topic: topic, payload: payload)
    }

    /// The `metrics` payload.
    func metrics() -> [JSONMember] {
        [JSONMember("ts", .string(Timestamp.rfc3339(now()))), JSONMember("uptime_s", .int(Int64(uptimeSeconds))),
         JSONMember("frames_rx", .int(Int64(counters.framesReceived))), JSONMember("frames_invalid", .int(Int64(counters.framesInvalid))),
         JSONMember("measurements", .int(Int64(core.measurements))), JSONMember("events", .int(Int64(core.events))),
         JSONMember("publish_queue", .int(Int64(publisher.client.outstandingMessageCount))),
         JSONMember("spooled", .int(Int64(publisher.spooled))), JSONMember("dropped", .int(Int64(publisher.dropped))),
         JSONMember("device_reconnects", .int(Int64(counters.deviceReconnects))),
         JSONMember("broker_reconnects", .int(Int64(counters.brokerReconnects))),
         JSONMember("requests_dropped", .int(Int64(counters.requestsDropped)))]
    }

    /// A request or announcement dropped by a limit (a flood, an oversized name): `requests_dropped`.
    func countDroppedRequest() {
        counters.requestsDropped += 1
    }

    private func publishDevice() {
        let payload = Payloads.device(ts: now(), state: deviceState, port: devicePort, info: deviceInfo, capabilities: capabilities)
        publishDurable(topics.device, payload, retain: true)
    }

    // MARK: MQTT

    private func handleMQTT(_ event: MQTTEvent) {
        switch event {
        case .connected:
            if brokerConnectedOnce { counters.brokerReconnects += 1 }
            brokerConnectedOnce = true
            brokerProblem.clear()
            brokerConnectedAt = Clocks.monotonic()
            logger.info("connected to the broker")
            do {
                try publisher.direct(topic: topics.status, payload: Payloads.render(Payloads.status(
                    online: true, ts: now(), position: configuration.gateway.position,
                    headingDegrees: configuration.gateway.headingDegrees, rangingInterval: configuration.device.rangingInterval)), retain: true)
            } catch {
                logger.warning("cannot publish the status: \(error)")
            }
            if let problem = publisher.brokerConnected() { logger.warning(problem) }
            publishDevice()
            for component in components { component.brokerConnected() }
        case let .disconnected(reason):
            publisher.brokerDisconnected()
            let text = "\(reason)"
            if case .requested = reason { return }
            noteQuickDrop()
            if brokerProblem.isNew(text) { logger.warning("broker connection: \(text); retrying with back-off") }
        case let .message(message):
            for component in components where component.receive(message) { break }
        case let .published(messageID):
            if let problem = publisher.acknowledged(messageID) { logger.warning(problem) }
        case let .publishFailed(messageID, reason):
            publishProblem("the broker refused message \(messageID): \(reason)")
            _ = publisher.acknowledged(messageID)
        case .subscribed:
            break
        }
    }

    /// The broker's refusals can come once per message: throttled, with counts.
    private func publishProblem(_ text: String) {
        for line in publishProblems.lines(for: text, at: Clocks.monotonic()) { logger.warning(line) }
    }

    /// A broker drops a client when another connects with its client id, and the two then take
    /// turns: connections that end within seconds of being made, again and again. Said once,
    /// with the id, since the broker gives no reason in MQTT 3.1.1.
    private func noteQuickDrop() {
        guard let connectedAt = brokerConnectedAt else { return }
        brokerConnectedAt = nil
        let now = Clocks.monotonic()
        guard now - connectedAt < 10 else { quickDrops = 0; return }
        quickDrops += 1
        if quickDrops == 3 {
            logger.warning("the broker closed the connection within seconds of connecting, 3 times in a row: another client may be using "
                           + "the client id \"\(configuration.clientID)\" (a second agent with this gateway id?); give each its own mqtt.client_id")
        }
    }

    // MARK: timers

    /// The engine's tick (signal loss, dwell times, angles that age) at the core's next
    /// deadline, not at a fixed rate: no timer while no peer ranges. A deadline that moved later
    /// (every measurement moves the signal-loss one) leaves the timer as it is; it then finds
    /// nothing due and is set again for the new deadline, so while tags range it runs about once
    /// per `signal_lost_after` (or `max_age` with angles) rather than ten times a second.
    private func armEngineTick() {
        guard let deadline = core.nextDeadline else { return }
        if let armed = engineTimer {
            guard deadline < armed.deadline else { return }
            loop.cancel(armed.timer)
        }
        // Up to 50 ms late, so that it rides on a notification's wake-up where one comes; never
        // sooner than a millisecond, whatever the clocks say.
        let timer = loop.schedule(after: max(deadline - now(), 0.001), slack: 0.05) { [unowned self] in
            engineTimer = nil
            core.tick(at: now())
            deliver()
        }
        engineTimer = (timer, deadline)
    }
}
