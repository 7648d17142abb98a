import EventLoop
import Gateway
import MQTTClient
import Vocabulary
import Watch
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `watch` on the event loop: subscribes to the gateways' trees, hands each message to the pure
/// `WatchModel` and prints the lines it returns. Like the agent, it never gives up on the broker:
/// each new reason it cannot connect is one line, and it keeps retrying with back-off until Ctrl-C.
final class WatchSession {
    let broker: BrokerSettings
    /// The gateway ids to follow; empty: all.
    let gateways: [String]
    let console: Console
    private var model: WatchModel
    private var stopRequested = false
    /// The last connection problem printed, so that each retry of the same one stays quiet.
    private var lastProblem: String?

    init(broker: BrokerSettings, gateways: [String], console: Console) {
        self.broker = broker
        self.gateways = gateways
        self.console = console
        model = WatchModel(base: broker.baseTopic)
    }

    /// The filters: `<base>/+/#`, or `<base>/<gw>/#` for each gateway asked for.
    var filters: [String] {
        gateways.isEmpty ? ["\(broker.baseTopic)/+/#"] : gateways.map { "\(broker.baseTopic)/\(TopicSegment.sanitize($0))/#" }
    }

    /// Runs until SIGINT or SIGTERM; 0 then, 1 when the broker settings cannot be used at all.
    func run() -> Int32 {
        let loop: EventLoop
        let client: MQTTClient
        let signals: SignalDescriptor
        do {
            loop = try EventLoop()
            signals = try SignalDescriptor([SIGINT, SIGTERM], on: loop) { [unowned self] _ in stopRequested = true }
            let settings = try BrokerConnection(
                url: broker.url, clientID: broker.clientID ?? "uwb2mqtt-watch-\(String(UInt32.random(in: 1...UInt32.max), radix: 16))",
                username: broker.username, passwordFile: broker.passwordFile, caFile: broker.caFile, certFile: broker.certFile,
                keyFile: broker.keyFile, keepaliveSeconds: broker.keepalive.seconds, will: nil
            ).configuration(logger: Logger())
            client = try MQTTClient(configuration: settings, loop: loop) { [unowned self] in handle($0) }
            for filter in filters { try client.subscribe(topic: filter, qos: .atLeastOnce) }
            try client.start()
        } catch {
            console.errors("uwb2mqtt: watch: \(error)")
            return ExitStatus.failure
        }
        say("broker \(broker.url): connecting, following \(filters.joined(separator: " "))")
        loop.run(until: { [unowned self] in stopRequested })
        _ = client.disconnect(timeout: .seconds(1))
        withExtendedLifetime(signals) {}
        return ExitStatus.success
    }

    private func handle(_ event: MQTTEvent) {
        switch event {
        case .connected:
            lastProblem = nil
            say("broker \(broker.url): connected")
        case let .disconnected(reason):
            if case .requested = reason { return }
            let problem = "\(reason)"
            guard problem != lastProblem else { return }
            lastProblem = problem
            say("broker \(broker.url): \(problem); retrying with back-off")
        case let .message(message):
            for change in model.receive(topic: message.topic, payload: message.payload, retained: message.retained, receivedAt: Clocks.wall()) {
                console.output(PlainLine.text(change))
            }
        default:
            break
        }
    }

    /// A line about `watch`'s own connection, in the same shape as the gateways' lines.
    private func say(_ text: String) {
        console.output(PlainLine.clock(secondsSince1970: Clocks.wall()) + " " + text)
    }
}
