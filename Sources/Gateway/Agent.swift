import DeviceLink
import Foundation
import MQTTClient
import Simulator
import UCI
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `uwb2mqtt run`: the agent loop that wires the device link to the publisher.
///
/// Everything that happens — device events, MQTT events, timer ticks, signals — arrives as an
/// `Input` on one AsyncStream, and this loop is the only owner of the agent's state: the C
/// callbacks and threads only hand data over. It never exits because the device or the broker
/// is missing or goes away; both retry with back-off and say why, once per change of reason.
public final class Agent {
    enum Input: Sendable {
        case device(DeviceLinkService.Event)
        case mqtt(MQTTEvent)
        case tick
        case signal(Int32)
    }

    let configuration: AgentConfiguration
    let topics: TopicTree
    let logger: Logger
    let scenario: Scenario?
    private let peersByAddress: [UInt16: AgentConfiguration.Peer]

    // State owned by the loop.
    private var publisher: Publisher!
    private var service: DeviceLinkService!
    private var deviceState: DeviceLinkState = .absent(nil)
    private var devicePort: String
    private var deviceInfo: DeviceInfo?
    private var capabilities: [ConfigTLV] = []
    private var lastRange: [UInt16: (ts: Double, distance: Double?, ok: Bool)] = [:]
    private var counters = Counters()
    private var startedAt = Clocks.monotonic()
    private var nextMetricsAt = 0.0
    private var brokerConnectedOnce = false
    private var lastBrokerProblem: String?
    private var rangingReached = 0
    private var homeAssistant: HomeAssistantDiscovery?
    private let systemd = SystemdNotifier()
    private var nextWatchdogAt = 0.0

    struct Counters {
        var framesReceived = 0
        var framesInvalid = 0
        var measurements = 0
        var events = 0
        var deviceReconnects = 0
        var brokerReconnects = 0
    }

    public init(configuration: AgentConfiguration, scenario: Scenario? = nil, logger: Logger) {
        self.configuration = configuration
        self.topics = configuration.topics
        self.logger = logger
        self.scenario = scenario
        peersByAddress = Dictionary(configuration.device.peers.map { ($0.address.value, $0) }, uniquingKeysWith: { a, _ in a })
        devicePort = configuration.device.port
        if configuration.mqtt.homeAssistant {
            homeAssistant = HomeAssistantDiscovery(topics: topics, gatewayID: configuration.gateway.id)
        }
    }

    /// Runs until SIGINT or SIGTERM; returns the exit status (1 for a configuration problem found
    /// at start, 0 after a clean shutdown).
    public func run() async -> Int32 {
        let mqtt = configuration.mqtt
        var clientConfiguration: MQTTConfiguration
        do {
            clientConfiguration = try MQTTConfiguration(url: mqtt.url, clientID: configuration.clientID)
            clientConfiguration.username = mqtt.username
            if let path = mqtt.passwordFile {
                let (password, warning) = try PasswordFile.read(path: path)
                clientConfiguration.password = password
                if let warning { logger.warning(warning) }
            }
            clientConfiguration.caFile = mqtt.caFile
            clientConfiguration.certFile = mqtt.certFile
            clientConfiguration.keyFile = mqtt.keyFile
            clientConfiguration.keepaliveSeconds = Int(mqtt.keepalive.seconds)
            clientConfiguration.will = MQTTWill(topic: topics.status, payload: Payloads.lastWill, qos: .atLeastOnce, retain: true)
        } catch {
            logger.error("\(configuration.source): \(error)")
            return 1
        }
        let client: MQTTClient
        let spool: Spool
        do {
            client = try MQTTClient(configuration: clientConfiguration)
            spool = try Spool(directory: mqtt.spoolDir, maximumBytes: mqtt.spoolMaxBytes.bytes)
        } catch {
            logger.error("\(error)")
            return 1
        }
        if let note = spool.recoveryNote { logger.warning(note) }
        if !spool.isEmpty { logger.info("\(spool.count) journaled messages wait for the broker") }
        publisher = Publisher(client: client, spool: spool)

        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)

        var simulator: SimulatorHost?
        var simulatorDirectory: String?
        if let scenario {
            let directory = NSTemporaryDirectory() + "uwb2mqtt-simulator-\(getpid())"
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let log = logger
                simulator = try SimulatorHost(scenario: scenario, linkPath: directory + "/dwm3001c") { log.info("simulator: \($0)") }
                simulatorDirectory = directory
                devicePort = directory + "/dwm3001c"
                logger.info("simulated DWM3001C (scenario \(scenario.name ?? "unnamed")) at \(simulator!.slavePath)")
            } catch {
                logger.error("cannot start the simulator: \(error)")
                return 1
            }
        }

        service = DeviceLinkService(port: devicePort, configuration: configuration.device.session,
                                    options: TransportOptions(baudRate: configuration.device.baud)) { event in
            continuation.yield(.device(event))
        }
        let forwarder = Task {
            for await event in client.events { continuation.yield(.mqtt(event)) }
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                continuation.yield(.tick)
            }
        }
        let signals = SignalWaiter([SIGINT, SIGTERM, SIGHUP]) { continuation.yield(.signal($0)) }

        logger.info("uwb2mqtt \(AgentVersion.agent) starting: gateway \(topics.gateway), device \(devicePort), broker \(clientConfiguration.broker)")
        startedAt = Clocks.monotonic()
        nextMetricsAt = startedAt + mqtt.metricsInterval.seconds
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
        _ = systemd.ready(status: "ranging device \(devicePort), broker \(clientConfiguration.broker)")

        for await input in inputs {
            if case let .signal(number) = input {
                if number == SIGHUP {
                    logger.info("SIGHUP: the rules engine is not part of this version; nothing to reload")
                    continue
                }
                logger.info("stopping (signal \(number))")
                break
            }
            handle(input)
        }

        _ = systemd.stopping()
        // Clean shutdown: `offline` with ts, then DISCONNECT (no will), then the device.
        try? publisher.direct(topic: topics.status, payload: Payloads.render(Payloads.status(
            online: false, ts: Clocks.wall(), position: configuration.gateway.position,
            headingDegrees: configuration.gateway.headingDegrees)), retain: true)
        let undelivered = await client.disconnect(timeout: .seconds(3))
        if undelivered > 0 { logger.warning("\(undelivered) messages were not acknowledged by the broker before shutdown") }
        ticker.cancel()
        forwarder.cancel()
        service.stop()
        simulator?.stop()
        if let simulatorDirectory { try? FileManager.default.removeItem(atPath: simulatorDirectory) }
        withExtendedLifetime(signals) {}
        continuation.finish()
        return 0
    }

    private func handle(_ input: Input) {
        switch input {
        case let .device(event): handleDevice(event)
        case let .mqtt(event): handleMQTT(event)
        case .tick: tick()
        case .signal: break
        }
    }

    // MARK: device

    private func handleDevice(_ event: DeviceLinkService.Event) {
        switch event {
        case let .stateChanged(state, port):
            deviceState = state
            devicePort = port
            if state == .ranging {
                rangingReached += 1
                if rangingReached > 1 { counters.deviceReconnects += 1 }
            }
            logger.info("device \(state)")
            publishDevice()
        case let .deviceIdentified(info, capabilities):
            deviceInfo = info
            self.capabilities = capabilities
            publishDevice()
        case let .measurements(info, receivedAt):
            for measurement in info.twoWayMeasurements { publishRange(measurement, info: info, at: receivedAt) }
        case let .sessionStopped(reason):
            logger.debug("ranging session stopped (\(reason))")
        case let .log(level, text):
            logger.log(level, text)
        case let .frame(_, _, valid):
            counters.framesReceived += 1
            if !valid { counters.framesInvalid += 1 }
        }
    }

    private var deviceHasAoA: Bool {
        capabilities.first { $0.id == 0x13 }.map { $0.value.contains { $0 != 0 } } ?? false
    }

    private func peer(for address: MacAddress) -> (name: String, segment: String) {
        if case let .short(value) = address, let peer = peersByAddress[value] {
            return (peer.displayName, peer.topicSegment)
        }
        return (address.description, address.description.lowercased())
    }

    private func publishRange(_ m: TwoWayRangingMeasurement, info: SessionInfo, at ts: Double) {
        counters.measurements += 1
        let (name, segment) = peer(for: m.macAddress)
        // An angle is given only when the device has AoA and reports a non-zero FOM for it.
        let azimuth = deviceHasAoA && m.aoaAzimuthFOM > 0 ? m.aoaAzimuth.degrees : nil
        let elevation = deviceHasAoA && m.aoaElevationFOM > 0 ? m.aoaElevation.degrees : nil
        let ok = m.status.isSuccess && m.distanceCentimeters != nil
        let distance = ok ? m.distanceCentimeters.map { Double($0) / 100 } : nil
        if case let .short(address) = m.macAddress {
            let previous = lastRange[address]
            lastRange[address] = ok ? (ts, distance, true) : (previous?.ts ?? ts, previous?.distance, false)
        }
        let payload = Payloads.range(ts: ts, peer: name, measurement: m, session: configuration.device.sessionID,
                                     sequence: info.sequenceNumber, filteredDistance: distance,
                                     angles: (azimuth, elevation))
        publisher.live(topic: topics.peer(segment, "range"), payload: Payloads.render(payload), qos: configuration.mqtt.qosRanges)
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
            let current = Set(homeAssistant.configs(peers: peerList).map(\.0))
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
        guard let homeAssistant else { return }
        for (topic, fields) in homeAssistant.configs(peers: peerList) { durable(topic, fields, retain: true) }
    }

    // MARK: requests

    private func respond(to name: String, payload: [UInt8]) {
        let response: [Field]
        switch Request.parse(name: name, payload: payload) {
        case let .failure(problem):
            logger.info("rejected request \(name): \(problem.message)")
            response = Payloads.response(id: problem.id, ok: false, error: problem.message)
        case let .success(request):
            response = answer(request)
        }
        durable(topics.response(name), response, retain: false)
    }

    private func answer(_ request: Request) -> [Field] {
        func ok(_ data: [Field] = []) -> [Field] { Payloads.response(id: request.id, ok: true, data: .object(data)) }
        func failure(_ text: String) -> [Field] { Payloads.response(id: request.id, ok: false, error: text) }
        let deviceReachable = !(deviceState == .opening || deviceState.name == "absent")
        switch request.name! {
        case .ping:
            return ok([Field("version", .string(AgentVersion.agent)), Field("uptime_s", .int(Int64(Clocks.monotonic() - startedAt)))])
        case .state:
            let now = Clocks.wall()
            let peers: [FieldValue] = configuration.device.peers.map { peer in
                let last = lastRange[peer.address.value]
                let link = last == nil ? "connecting" : (last!.ok && now - last!.ts < 2 ? "ranging" : "lost")
                return .object([Field("peer", .string(peer.displayName)), Field("mac", .string(peer.address.description)),
                                Field("link", .string(link)), Field("distance_m", last?.distance.map(FieldValue.double) ?? .null),
                                Field("ts", last.map { .string(Timestamp.rfc3339($0.ts)) } ?? .null)])
            }
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
            return failure("this version has no rules engine; nothing to reload")
        }
    }

    // MARK: timers

    private func tick() {
        let now = Clocks.monotonic()
        // The watchdog is fed from the loop itself: if this loop stalls, systemd restarts us.
        if let interval = systemd.watchdogInterval, now >= nextWatchdogAt {
            _ = systemd.watchdog()
            nextWatchdogAt = now + Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        }
        guard now >= nextMetricsAt else { return }
        nextMetricsAt = now + configuration.mqtt.metricsInterval.seconds
        let fields: [Field] = [
            Field("ts", .string(Timestamp.rfc3339(Clocks.wall()))), Field("uptime_s", .int(Int64(now - startedAt))),
            Field("frames_rx", .int(Int64(counters.framesReceived))), Field("frames_invalid", .int(Int64(counters.framesInvalid))),
            Field("measurements", .int(Int64(counters.measurements))), Field("events", .int(Int64(counters.events))),
            Field("publish_queue", .int(Int64(publisher.client.outstandingMessageCount))),
            Field("spooled", .int(Int64(publisher.spooled))), Field("dropped", .int(Int64(publisher.dropped))),
            Field("device_reconnects", .int(Int64(counters.deviceReconnects))),
            Field("broker_reconnects", .int(Int64(counters.brokerReconnects))),
        ]
        publisher.live(topic: topics.metrics, payload: Payloads.render(fields), qos: 0)
    }
}
