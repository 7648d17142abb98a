import Vocabulary
import Gateway
import EventLoop
import DeviceLink
import FoundationEssentials
import MQTTClient
import SiteFusion
import UCI
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `uwb2mqtt fuse`: combines the ranges of several gateways into site positions (mqtt-api.md,
/// "Site positions"). It learns the gateways and their poses from their retained `status`,
/// feeds every successful `range` to the pure `FusionTracker`, and publishes positions, site
/// state and events under `<base>/site/<site>/`.
///
/// Several instances stand by for each other through the retained site status: the first to
/// hold it (`online` with its instance id) publishes; the others watch, and take over when its
/// last will says it is gone. Like the agent, one loop owns all state; callbacks only hand over.
public final class FuseService {
    let configuration: FuseConfiguration
    let logger: Logger
    let instanceID = String(UInt64.random(in: 1...UInt64.max), radix: 16)
    private var tracker: FusionTracker
    private var client: MQTTClient!
    private var loop: EventLoop!
    private var stopRequested = false
    private var active = false
    private var activeInstance: String?
    private var decideAt: Double?
    private var eventCounter = 0
    private var brokerProblem = RepeatedReason()
    private let base: String
    private let site: String

    public init(configuration: FuseConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        tracker = FusionTracker(settings: configuration.fusionSettings, zones: configuration.polygonZones)
        base = TopicTree(base: configuration.mqtt.baseTopic, gatewayID: "x").base
        site = TopicSegment.sanitize(configuration.site)
    }

    var siteRoot: String { "\(base)/site/\(site)" }
    var statusTopic: String { siteRoot + "/status" }

    /// Runs on the calling thread's event loop until SIGINT or SIGTERM; returns the exit status.
    public func run() -> Int32 {
        let mqtt = configuration.mqtt
        let settings: MQTTConfiguration
        let signals: SignalDescriptor
        do {
            loop = try EventLoop()
            signals = try SignalDescriptor([SIGINT, SIGTERM], on: loop) { [unowned self] _ in stopRequested = true }
            settings = try BrokerConnection(
                broker: mqtt, clientID: mqtt.clientID ?? "uwb2mqtt-fuse-\(site)-\(instanceID.prefix(6))",
                will: MQTTWill(topic: statusTopic, payload: Array(#"{"state":"offline","instance":"\#(instanceID)"}"#.utf8),
                               qos: .atLeastOnce, retain: true)
            ).configuration(logger: logger)
            client = try MQTTClient(configuration: settings, loop: loop) { [unowned self] in handle($0) }
            try client.subscribe(topic: "\(base)/+/status", qos: .atLeastOnce)
            try client.subscribe(topic: "\(base)/+/peer/+/range", qos: .atMostOnce)
            try client.subscribe(topic: statusTopic, qos: .atLeastOnce)
            try client.start()
        } catch {
            logger.error("fuse: \(error)")
            return 1
        }
        logger.info("uwb2mqtt fuse \(AgentVersion.agent): site \(site) (instance \(instanceID)), broker \(settings.broker)")
        scheduleTick()
        loop.run(until: { [unowned self] in stopRequested })
        if active { _ = try? client.publish(topic: statusTopic, payload: status(online: false), qos: .atLeastOnce, retain: true) }
        _ = client.disconnect(timeout: .seconds(3))
        withExtendedLifetime(signals) {}
        return 0
    }

    private func scheduleTick() {
        loop.schedule(after: 0.1) { [unowned self] in
            tick()
            scheduleTick()
        }
    }

    /// The retained site status. `zones` (beyond mqtt-api.md) gives each zone's outline, so that
    /// a viewer (`watch --site`) draws the site as the fuse decides on it.
    private func status(online: Bool) -> [UInt8] {
        let zones: [JSONValue] = configuration.zones.map { zone in
            .object([JSONMember("name", .string(zone.name)),
                     JSONMember("polygon", .list(zone.polygon.map { .list([millimetres($0.x), millimetres($0.y)]) }))])
        }
        return Payloads.render([JSONMember("state", .string(online ? "online" : "offline")), JSONMember("ts", .string(Timestamp.rfc3339(Clocks.wall()))),
                                JSONMember("version", .string(AgentVersion.agent)), JSONMember("instance", .string(instanceID)),
                                JSONMember("zones", .list(zones))])
    }

    private func handle(_ event: MQTTEvent) {
        switch event {
        case .connected:
            brokerProblem.clear()
            logger.info("connected to the broker")
            // Wait a moment for a retained site status: another instance may hold the site.
            if !active { decideAt = Clocks.monotonic() + 1 } else { becomeActive() }
        case let .disconnected(reason):
            if case .requested = reason { return }
            // Said once per reason, not at every retry of a broker that stays down.
            if brokerProblem.isNew("\(reason)") { logger.warning("broker connection: \(reason); retrying with back-off") }
        case let .message(message):
            receive(message)
        default:
            break
        }
    }

    private func tick() {
        if let due = decideAt, Clocks.monotonic() >= due {
            decideAt = nil
            if activeInstance == nil { becomeActive() } else { logger.info("standing by: instance \(activeInstance!) holds site \(site)") }
        }
        publish(tracker.tick(at: Clocks.wall()))
    }

    private func becomeActive() {
        guard !active else { return }
        active = true
        activeInstance = instanceID
        logger.info("active for site \(site)")
        _ = try? client.publish(topic: statusTopic, payload: status(online: true), qos: .atLeastOnce, retain: true)
    }

    private func receive(_ message: MQTTMessage) {
        let levels = message.topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let object = (try? JSONDecoder().decode(IncomingPayload.self, from: Data(message.payload))) ?? IncomingPayload()
        if message.topic == statusTopic {
            siteStatus(object)
            return
        }
        let baseCount = base.split(separator: "/").count
        guard levels.count > baseCount else { return }
        let gateway = levels[baseCount]
        if levels.count == baseCount + 2, levels[baseCount + 1] == "status" {
            let position = object.position.map { SitePoint(x: $0.x, y: $0.y, z: $0.z) }
            let online = object.state == "online"
            let before = tracker.window
            tracker.updateGateway(gateway, position: position, online: online, rangingInterval: object.rangingInterval.map { $0 / 1000 })
            if tracker.window != before {
                logger.info("window \(Int((tracker.window * 1000).rounded())) ms: 1.25 × the slowest ranging interval the gateways report")
            }
            logger.debug("gateway \(gateway) \(online ? "online" : "offline")\(position.map { " at \($0)" } ?? " without a position")")
            return
        }
        // <base>/<gw>/peer/<peer>/range
        guard levels.count == baseCount + 4, levels[baseCount + 1] == "peer", levels[baseCount + 3] == "range",
              object.status == "ok", let distance = object.rawDistance,
              let peer = object.peer, let ts = object.ts.flatMap(Timestamp.parse) else { return }
        let nlos = object.nlos ?? false
        publish(tracker.ingest(GatewayRange(peer: peer, gateway: gateway, distanceM: distance, nlos: nlos, time: ts)))
    }

    /// Another instance's status: stand by while it holds the site; take over when it is gone.
    private func siteStatus(_ object: IncomingPayload) {
        let instance = object.instance
        let online = object.state == "online"
        guard let instance, instance != instanceID else { return }
        if online {
            if active, instance < instanceID {
                // Two came up at once: the smaller id keeps the site.
                active = false
                logger.info("instance \(instance) also holds site \(site); standing by")
            }
            if !active { activeInstance = instance }
        } else if instance == activeInstance || activeInstance == nil {
            activeInstance = nil
            logger.info("instance \(instance) is gone; taking over site \(site)")
            becomeActive()
        } else if active {
            // A stand-by instance's will overwrote the retained status: say again who holds the site.
            _ = try? client.publish(topic: statusTopic, payload: status(online: true), qos: .atLeastOnce, retain: true)
        }
    }

    private func publish(_ outputs: [FusionOutput]) {
        guard active else { return }
        for output in outputs {
            switch output {
            case let .position(p):
                let fields: [JSONMember] = [JSONMember("ts", .string(Timestamp.rfc3339(p.ts))), JSONMember("peer", .string(p.peer)), JSONMember("frame", .string("site")),
                                       JSONMember("x", millimetres(p.x)), JSONMember("y", millimetres(p.y)), JSONMember("z", millimetres(p.z)),
                                       JSONMember("accuracy_m", millimetres(p.accuracyM)), JSONMember("gateways", .list(p.gateways.map(JSONValue.string))),
                                       JSONMember("method", .string(SiteFix.method))]
                _ = try? client.publish(topic: "\(siteRoot)/peer/\(TopicSegment.sanitize(p.peer))/position", payload: Payloads.render(fields), qos: .atMostOnce)
            case let .state(s):
                let position: JSONValue = s.position.map {
                    .object([JSONMember("x", millimetres($0.x)), JSONMember("y", millimetres($0.y)), JSONMember("z", millimetres($0.z)),
                             JSONMember("accuracy_m", millimetres($0.accuracyM))])
                } ?? .null
                let fields: [JSONMember] = [JSONMember("ts", .string(Timestamp.rfc3339(s.ts))), JSONMember("peer", .string(s.peer)), JSONMember("position", position),
                                       JSONMember("zones", .list(s.zones.map(JSONValue.string))), JSONMember("gateways_in_range", .int(Int64(s.gatewaysInRange)))]
                _ = try? client.publish(topic: "\(siteRoot)/peer/\(TopicSegment.sanitize(s.peer))/state", payload: Payloads.render(fields),
                                        qos: .atLeastOnce, retain: true)
            case let .event(e):
                eventCounter += 1
                var reason: [JSONMember] = []
                if let t = e.reason.thresholdM { reason.append(JSONMember("threshold_m", .double(t))) }
                if let d = e.reason.dwellMs { reason.append(JSONMember("dwell_ms", .int(Int64(d)))) }
                if let c = e.reason.crossedAt { reason.append(JSONMember("crossed_at", .string(Timestamp.rfc3339(c)))) }
                if let c = e.reason.cause { reason.append(JSONMember("cause", .string(c))) }
                if let l = e.reason.lastSeen { reason.append(JSONMember("last_seen", .string(Timestamp.rfc3339(l)))) }
                let fields: [JSONMember] = [JSONMember("id", .string("site-\(site):\(instanceID):\(eventCounter)")), JSONMember("ts", .string(Timestamp.rfc3339(e.ts))),
                                       JSONMember("peer", .string(e.peer)), JSONMember("type", .string(e.type.rawValue)),
                                       JSONMember("rule", e.zone.map(JSONValue.string) ?? .null), JSONMember("from", .string(e.from)), JSONMember("to", .string(e.to)),
                                       JSONMember("distance_m", .null), JSONMember("reason", .object(reason)), JSONMember("cue", .null)]
                logger.info("site event \(e.type.rawValue) \(e.peer)\(e.zone.map { " " + $0 } ?? "")")
                _ = try? client.publish(topic: "\(siteRoot)/peer/\(TopicSegment.sanitize(e.peer))/event", payload: Payloads.render(fields), qos: .atLeastOnce)
            }
        }
    }

    private func millimetres(_ value: Double) -> JSONValue { .double((value * 1000).rounded() / 1000) }
}

/// What fuse reads of a gateway's `status` and `range` and of a site `status`. Each field is read
/// on its own: one of an unexpected type is missing, the others still count.
private struct IncomingPayload: Decodable {
    struct Point: Decodable {
        let x: Double
        let y: Double
        let z: Double
    }

    var state: String?
    var position: Point?
    var status: String?
    var rawDistance: Double?
    var peer: String?
    var ts: String?
    var nlos: Bool?
    var instance: String?
    var rangingInterval: Double?

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        state = try? container.decodeIfPresent(String.self, forKey: .state)
        position = try? container.decodeIfPresent(Point.self, forKey: .position)
        status = try? container.decodeIfPresent(String.self, forKey: .status)
        rawDistance = try? container.decodeIfPresent(Double.self, forKey: .rawDistance)
        peer = try? container.decodeIfPresent(String.self, forKey: .peer)
        ts = try? container.decodeIfPresent(String.self, forKey: .ts)
        nlos = try? container.decodeIfPresent(Bool.self, forKey: .nlos)
        instance = try? container.decodeIfPresent(String.self, forKey: .instance)
        rangingInterval = try? container.decodeIfPresent(Double.self, forKey: .rangingInterval)
    }

    enum Key: String, CodingKey {
        case state, position, status, peer, ts, nlos, instance
        case rawDistance = "raw_distance_m"
        case rangingInterval = "ranging_interval_ms"
    }
}
