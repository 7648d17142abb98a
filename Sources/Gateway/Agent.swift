import Service
import Vocabulary
import DeviceLink
import EventLoop
import FoundationEssentials
import MQTTClient
import Proximity
import Recording
import UCI
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `uwb2mqtt run`: the agent's shell, one event loop around the core.
///
/// Everything that happens — device events, MQTT events, timers, signals, the rules file changing
/// — is read on the thread that runs the loop, dated (`AgentMoment`) and handed to the core
/// (`AgentCore.handle`), which decides; the shell then publishes what the core put in its outbox
/// and carries out its actions (device commands, log lines, files to read or watch), and sets
/// one timer for the core's next wake-up. A notification is read, decided on and published in
/// one wake-up, and what it published leaves in one flush. It never exits because the device or
/// the broker is missing or goes away; both retry with back-off and say why, once per change of
/// reason.
public final class Agent {
    /// The configuration the agent started with: the broker, the device port, recording. What
    /// SIGHUP can change is the core's (`core.configuration`).
    private let configuration: AgentConfiguration
    private let topics: TopicTree
    private let logger: Logger
    private let standIn: (any DeviceStandIn)?
    /// The decisions. This shell feeds it and carries out what it decided.
    private var core: AgentCore

    // I/O owned by the loop.
    private var publisher: Publisher!
    /// Syncs the publisher's journal off the loop: asked after every wake-up that journaled. Held
    /// here too, so that asking does not read the publisher (a struct in this class: a copy of it
    /// for every call that does not change it).
    private var journalSync: JournalSync?
    private var service: DeviceLinkService!
    private let systemd = SystemdNotifier()
    private var loop: EventLoop!
    private var stopRequested = false
    /// The time every input to the core is dated with: the wall clock, never running backwards.
    private var clock = AgentClock()
    private var journalProblems = LogThrottle(window: 60)
    /// The longest a shutdown waits for the device's session to wind down: two commands of the
    /// session's wind-down timeout each, and some slack; far below systemd's TimeoutStopSec.
    private static let deviceShutdownLimit = 2.5
    /// The timer for the core's next wake-up and that wake-up (monotonic), while one is set.
    private var wakeTimer: (timer: EventLoop.Timer, deadline: Double)?
    /// The rules file watched for changes: whether it really changed (size, mtime, inode) and
    /// what wakes the loop when it may have (inotify on its directory).
    private var rulesFile: (state: FileWatch, events: FileChangeWatch)?
    private var recorder: PacketRecorder?

    /// `standIn`: what the agent ranges with instead of `device.port` (`run --simulate`).
    public init(configuration: AgentConfiguration, standIn: (any DeviceStandIn)? = nil, logger: Logger) {
        self.configuration = configuration
        self.topics = configuration.topics
        self.logger = logger
        self.standIn = standIn
        // A random id per run: event ids are `<gw>:<boot id>:<counter>`, unique across restarts.
        let bootID = String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
        let watchdog = systemd.watchdogInterval.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        core = AgentCore(configuration: configuration, eventIDPrefix: "\(configuration.topics.gateway):\(bootID)") { configuration in
            Self.makeComponents(configuration, watchdogInterval: watchdog)
        }
        core.keepsEvents = logger.threshold >= .debug
    }

    /// The features, each one file: Home Assistant before the rules, so that a SIGHUP announces
    /// the new peers before the reloaded rules announce their zones.
    private static func makeComponents(_ configuration: AgentConfiguration, watchdogInterval: Double?) -> [any AgentComponent] {
        var list: [any AgentComponent] = []
        if configuration.mqtt.homeAssistant {
            list.append(HomeAssistantComponent(topics: configuration.topics, gatewayID: configuration.gateway.id))
        }
        list += [RulesComponent(siteTopic: configuration.rulesTopic) as any AgentComponent, RequestsComponent(),
                 PhonesComponent(configuration: configuration, random: SystemRandomNumberGenerator()),
                 MetricsComponent(interval: configuration.mqtt.metricsInterval.seconds, watchdogInterval: watchdogInterval)]
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
            loop.onLateWake = { [unowned self] seconds in feed(.stalled(seconds: seconds)) }
        } catch {
            logger.error("cannot set up the event loop: \(error)")
            return 1
        }
        // A file-size limit (ulimit -f) must make journal writes fail with EFBIG, which the
        // journal reports, rather than kill the agent with SIGXFSZ.
        signal(SIGXFSZ, SIG_IGN)
        let clientConfiguration: MQTTConfiguration
        do {
            clientConfiguration = try BrokerConnection(
                broker: configuration.mqtt.broker, clientID: configuration.clientID,
                will: MQTTWill(topic: topics.status, payload: Payloads.lastWill, qos: .atLeastOnce, retain: true),
                maximumIncomingPacketBytes: Request.maximumPacketBytes
            ).configuration(logger: logger)
        } catch {
            logger.error("\(configuration.source): \(error)")
            return 1
        }
        let client: MQTTClient
        let spool: Spool
        let contract: ContractProperties
        do {
            contract = try ContractProperties(liveExpirySeconds: UInt32(configuration.mqtt.broker.messageExpiry.seconds))
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
                core.recordsInputs = true
                logger.info("recording every UCI packet to \(path)")
            } catch {
                logger.error("cannot record to \(path): \(error); running without recording")
            }
        }
        if !spool.isEmpty { logger.info("\(spool.count) journaled messages wait for the broker") }
        let journalSync = JournalSync(spool: spool, loop: loop) { [unowned self] problem in
            for line in journalProblems.lines(for: problem, at: Clocks.monotonic()) { logger.warning(line) }
        }
        self.journalSync = journalSync
        publisher = Publisher(client: client, spool: spool, contract: contract, journalSync: journalSync)

        var devicePort = configuration.device.port
        if let standIn {
            do {
                devicePort = try standIn.start(loop: loop, topics: topics, logger: logger)
            } catch {
                logger.error("cannot start \(standIn.name): \(error)")
                return 1
            }
        }

        service = DeviceLinkService(loop: loop, port: devicePort, configuration: configuration.device.session,
                                    options: TransportOptions(baudRate: configuration.device.baud)) { [unowned self] event in
            handleDevice(event)
        }

        feed(.started)
        logger.info("uwb2mqtt \(AgentVersion.agent) starting: gateway \(topics.gateway), device \(devicePort), broker \(clientConfiguration.broker)")
        for warning in configuration.warnings { logger.warning("\(configuration.source): \(warning)") }
        do {
            // Requests and phones' reports with their retain flag as published: an empty retained
            // message that clears a retained request arrives as what it is, not as an empty
            // request to carry out, and a retained report is seen to be one. Reports are live
            // data, one of many a second: at most once.
            for filter in core.subscriptions {
                let reports = filter == topics.phoneReportFilter
                try client.subscribe(topic: filter, qos: reports ? .atMostOnce : .atLeastOnce,
                                     retainAsPublished: reports || filter == topics.requestFilter)
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
        try? publisher.direct(topic: topics.status, payload: status(online: false), retain: true)
        let undelivered = client.disconnect(timeout: .seconds(3))
        if undelivered > 0 { logger.warning("\(undelivered) messages were not acknowledged by the broker before shutdown") }
        // What the last wake-ups journaled: synced here, the loop has nothing left to read.
        do { try spool.syncAppends() } catch { logger.warning("\(error)") }
        // Loop-bound parts go before the loop does.
        if let wakeTimer { loop.cancel(wakeTimer.timer) }
        rulesFile = nil
        service = nil
        recorder?.close()
        standIn?.stop()
        withExtendedLifetime(signals) {}
        return 0
    }

    // MARK: The core

    /// Hands `input` to the core, dated now (or with the readings of the two clocks taken
    /// together, for a measurement's receive time), and carries out what it decided.
    private func feed(_ input: AgentInput, wall: Double = Clocks.wall(), monotonic: Double = Clocks.monotonic()) {
        core.handle(input, at: moment(wall: wall, monotonic: monotonic))
        carryOut()
    }

    /// Now, or the moment of readings of the two clocks taken together. When the system clock
    /// stepped forward, the core hears of it first: the time it skipped is not the tags' silence.
    private func moment(wall: Double = Clocks.wall(), monotonic: Double = Clocks.monotonic()) -> AgentMoment {
        let (time, steppedForward) = clock.time(monotonic: monotonic, wall: wall)
        let moment = AgentMoment(time: time, monotonic: monotonic)
        if steppedForward { core.handle(.clockSteppedForward, at: moment) }
        return moment
    }

    /// Publishes what the core decided, each message with its delivery class, and empties its
    /// outbox; carries out its actions (reading the rules file hands the core its outcome at
    /// once); then follows the core's next wake-up, which the input may have moved.
    private func carryOut() {
        core.outbox.forEach { topic, payload, delivery in
            switch delivery {
            case let .live(qos):
                publisher.live(topic: topic, payload: payload, qos: qos)
            case let .durable(retain):
                if let problem = publisher.durable(topic: topic, payload: payload, retain: retain) { logger.warning(problem) }
            case let .response(distinct, correlationData):
                publisher.response(topic: topic, payload: payload, distinct: distinct, correlationData: correlationData)
            }
        }
        core.clearOutbox()
        journalSync?.request()
        // At debug level every event is also logged (kept typed by the core only then).
        for event in core.takeEvents() {
            logger.debug("event \(event.type.rawValue) \(event.peer.displayName)\(event.rule.map { " " + $0 } ?? "")")
        }
        for action in core.takeActions() { perform(action) }
        armWakeTimer()
    }

    private func perform(_ action: AgentAction) {
        switch action {
        case let .device(command):
            service.send(command)
        case let .log(level, text):
            logger.log(level, text)
        case let .loadRules(path, trigger):
            feed(.rulesLoaded(RulesLoading.load(path: path), path: path, trigger: trigger))
        case let .setRules(bytes, origin, path, trigger):
            feed(.rulesLoaded(RulesLoading.install(bytes, origin: origin, at: path), path: path, trigger: trigger))
        case let .watchRules(path):
            watchRules(path)
        case .feedWatchdog:
            _ = systemd.watchdog()
        case let .record(input, time):
            record { recorder throws(RecordingError) in try recorder.record(input, at: time) }
        }
    }

    /// One timer for the core's next wake-up, not a fixed-rate ticker: none while nothing is
    /// due. A wake-up that moved later (every measurement moves the signal-loss deadline) leaves
    /// the timer as it is; it then finds little due and is set again for the new one, so while
    /// tags range it runs about once per `signal_lost_after` (or `max_age` with angles) rather
    /// than ten times a second. Up to 50 ms late, so that it rides on a notification's wake-up
    /// where one comes; never sooner than a millisecond, whatever the clocks say. A deadline kept
    /// in the agent's time comes out of `nextWake` a few microseconds apart from one notification
    /// to the next (the two clocks are read at different instants): only one earlier by more
    /// than a millisecond moves the timer.
    private func armWakeTimer() {
        guard let deadline = core.nextWake else { return }
        if let armed = wakeTimer {
            guard deadline < armed.deadline - 0.001 else { return }
            loop.cancel(armed.timer)
        }
        let timer = loop.schedule(after: max(deadline - Clocks.monotonic(), 0.001), slack: 0.05) { [unowned self] in
            wakeTimer = nil
            feed(.timePassed(publisher: PublisherFigures(queued: publisher.client.outstandingMessageCount,
                                                         spooled: publisher.spooled, dropped: publisher.dropped,
                                                         refusedByBroker: publisher.brokerRefused)))
        }
        wakeTimer = (timer, deadline)
    }

    /// Watches the rules file at `path` (the one watched so far, if it is the same).
    private func watchRules(_ path: String) {
        guard rulesFile?.state.path != path else { return }
        rulesFile = nil
        let events = FileChangeWatch(path: path, loop: loop) { [unowned self] in
            guard rulesFile?.state.changed() == true else { return }
            logger.info("\(path) changed on disk")
            feed(.rulesLoaded(RulesLoading.load(path: path), path: path, trigger: .fileChanged))
        }
        if let reason = events.fallbackReason { logger.warning("\(reason); looking at \(path) once a second instead") }
        rulesFile = (FileWatch(path: path), events)
    }

    private func handleSignal(_ number: Int32) {
        guard number == SIGHUP else {
            logger.info("stopping (signal \(number))")
            stopRequested = true
            return
        }
        _ = systemd.reloading()
        let source = core.configuration.source
        logger.info("SIGHUP: reloading \(source) and \(core.configuration.rules)")
        // The file is read here, not by the core; without one (defaults) the running
        // configuration stays and only the rules are read again.
        let reloaded: Result<AgentConfiguration, any Error> =
            source == "<defaults>" ? .success(core.configuration) : Result { try AgentConfiguration.load(path: source) }
        feed(.configurationReloaded(reloaded))
        _ = systemd.ready()
    }

    /// The agent's retained `status`: published by the shell itself, around the connection (its
    /// will says `offline` when the agent dies).
    private func status(online: Bool) -> [UInt8] {
        Payloads.render(Payloads.status(online: online, ts: moment().time,
                                        position: configuration.gateway.position, headingDegrees: configuration.gateway.headingDegrees,
                                        rangingInterval: configuration.device.rangingInterval))
    }

    // MARK: Device

    private func handleDevice(_ event: DeviceReport) {
        switch event {
        case let .measurements(_, receivedAt, monotonic, raw):
            record(raw, receivedAt)
            feed(.device(event), wall: receivedAt, monotonic: monotonic)
        case let .frame(raw, receivedAt, _):
            record(raw, receivedAt)
            feed(.device(event))
        default:
            feed(.device(event))
        }
    }

    private func record(_ raw: RawMessage, _ receivedAt: Double) {
        record { recorder throws(RecordingError) in try recorder.record(raw, receivedAt: receivedAt) }
    }

    /// Writes to the recording, if there is one; a failed write ends the recording, said once.
    private func record(_ write: (PacketRecorder) throws(RecordingError) -> Void) {
        guard let recorder else { return }
        do {
            try write(recorder)
        } catch {
            logger.error("recording stopped: \(error)")
            recorder.close()
            self.recorder = nil
            core.recordsInputs = false
        }
    }

    // MARK: MQTT

    private func handleMQTT(_ event: MQTTEvent) {
        switch event {
        case .connected:
            do {
                try publisher.direct(topic: topics.status, payload: status(online: true), retain: true)
            } catch {
                logger.warning("cannot publish the status: \(error)")
            }
            if let problem = publisher.brokerConnected() { logger.warning(problem) }
            feed(.brokerConnected)
        case let .disconnected(reason):
            let (largest, problem) = publisher.brokerDisconnected()
            if let problem { logger.warning(problem) }
            feed(.brokerDisconnected(reason, largestPublished: largest))
        case let .message(message):
            feed(.message(message))
        case let .published(messageID):
            if let problem = publisher.acknowledged(messageID) { logger.warning(problem) }
        case let .publishFailed(messageID, topic, reasonCode, reason):
            if let line = publisher.brokerRefused(topic: topic, reasonCode: reasonCode, reason: reason) { logger.warning(line) }
            if let problem = publisher.acknowledged(messageID) { logger.warning(problem) }
        case .subscribed:
            break
        }
    }
}
