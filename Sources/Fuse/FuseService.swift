import Vocabulary
import Service
import EventLoop
import MQTTClient
import SiteFusion
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
/// What to do with each message and when is `FuseCore`'s to decide; this is its I/O: the
/// broker, the clock, the log.
public final class FuseService {
    let logger: Logger
    private var core: FuseCore
    private var client: MQTTClient!
    private var loop: EventLoop!
    private var stopRequested = false
    private var brokerProblem = RepeatedReason()
    /// The wake-up scheduled for the core (wall-clock time it is for), if any.
    private var wake: (timer: EventLoop.Timer, at: Double)?

    /// Wake-ups for the core ride on the loop's other wake-ups within this much, so that a
    /// crowd of peers due one after another costs a tick every 50 ms, not one per peer.
    static let wakeSlack = 0.05
    /// What the fuse reads are gateways' statuses and ranges, a few hundred bytes each: the broker
    /// never delivers it a packet larger than this (MQTT 5), so no client can make it take in a
    /// huge one.
    static let maximumIncomingPacketBytes = 64 << 10
    /// The contract's MQTT 5 properties for what the fuse publishes.
    private var contract: ContractProperties?

    public init(configuration: FuseConfiguration, logger: Logger) {
        self.logger = logger
        core = FuseCore(configuration: configuration, instanceID: String(UInt64.random(in: 1...UInt64.max), radix: 16))
    }

    /// Runs on the calling thread's event loop until SIGINT or SIGTERM; returns the exit status.
    public func run() -> Int32 {
        let mqtt = core.configuration.mqtt
        let settings: MQTTConfiguration
        let signals: SignalDescriptor
        do {
            loop = try EventLoop()
            // How far behind the fuse reads is bounded by when it last had nothing to read.
            loop.onRest = { [unowned self] in core.rested(at: Clocks.wall()) }
            signals = try SignalDescriptor([SIGINT, SIGTERM], on: loop) { [unowned self] _ in stopRequested = true }
            settings = try BrokerConnection(
                broker: mqtt, clientID: mqtt.clientID ?? "uwb2mqtt-fuse-\(core.site)-\(core.instanceID.prefix(6))",
                will: MQTTWill(topic: core.statusTopic, payload: core.lastWill, qos: .atLeastOnce, retain: true),
                maximumIncomingPacketBytes: Self.maximumIncomingPacketBytes
            ).configuration(logger: logger)
            contract = try ContractProperties(liveExpirySeconds: UInt32(mqtt.messageExpiry.seconds))
            client = try MQTTClient(configuration: settings, loop: loop) { [unowned self] in handle($0) }
            try client.subscribe(topic: core.gatewayStatusFilter, qos: .atLeastOnce)
            try client.subscribe(topic: core.rangeFilter, qos: .atMostOnce)
            try client.subscribe(topic: core.statusTopic, qos: .atLeastOnce)
            try client.start()
        } catch {
            logger.error("fuse: \(error)")
            return 1
        }
        logger.info("uwb2mqtt fuse \(AgentVersion.agent): site \(core.site) (instance \(core.instanceID)), broker \(settings.broker)")
        loop.run(until: { [unowned self] in stopRequested })
        perform(core.stopping(at: Clocks.wall()))
        _ = client.disconnect(timeout: .seconds(3))
        withExtendedLifetime(signals) {}
        return 0
    }

    private func handle(_ event: MQTTEvent) {
        switch event {
        case .connected:
            brokerProblem.clear()
            logger.info("connected to the broker")
            perform(core.connected(at: Clocks.wall()))
        case let .disconnected(reason):
            if case .requested = reason { return }
            // Said once per reason, not at every retry of a broker that stays down.
            if brokerProblem.isNew("\(reason)") { logger.warning("broker connection: \(reason); retrying with back-off") }
        case let .message(message):
            perform(core.receive(topic: message.topic, payload: message.payload, at: Clocks.wall()))
        default:
            break
        }
    }

    private func perform(_ actions: [FuseAction]) {
        for action in actions {
            switch action {
            case let .publish(topic, payload, qos, retain):
                // QoS 0 is the site's live data (positions); the rest is events and retained state.
                let properties = payload.isEmpty ? nil : qos == 0 && !retain ? contract?.live : contract?.lasting
                _ = try? client.publish(topic: topic, payload: payload, qos: qos == 0 ? .atMostOnce : .atLeastOnce, retain: retain,
                                        properties: properties)
            case let .log(level, line):
                logger.log(level, line)
            }
        }
        scheduleWake()
    }

    /// Sleeps until the core's next deadline: nothing runs while nothing can become due. A
    /// wake-up already scheduled earlier stays (it finds nothing to do and schedules the next),
    /// so that ranges, which move deadlines later, cost no timer each.
    private func scheduleWake() {
        guard let next = core.nextWake else { return }
        if let wake, wake.at <= next { return }
        if let wake { loop.cancel(wake.timer) }
        let timer = loop.schedule(after: next - Clocks.wall(), slack: Self.wakeSlack) { [unowned self] in
            wake = nil
            perform(core.tick(at: Clocks.wall()))
        }
        wake = (timer, next)
    }
}
