import Service
import EventLoop
import Gateway
import MQTTClient
import Simulator
import UCI
import Vocabulary

/// The apps of a scenario's simulated phones (`app:` under a peer's `iphone:` or `phone:`), for
/// `run --simulate`: they talk to the gateway through the broker with a client of their own, as a
/// phone's app does, start their sessions on the simulator (`SimulatorHost.startIPhone`,
/// `startPhone`) and report what the phone sees. The decisions are `SimulatedPhoneApp`'s; this
/// carries them out on the agent's loop.
final class SimulatedPhoneApps {
    private var apps: [SimulatedPhoneApp]
    private let configuration: MQTTConfiguration
    private var client: MQTTClient?
    private let host: SimulatorHost
    private let topics: TopicTree
    private let loop: EventLoop
    private let log: (String) -> Void
    private var timer: EventLoop.Timer?

    /// nil when the scenario has no phone with an app. `start` connects.
    init?(scenario: Scenario, host: SimulatorHost, broker: BrokerSettings, clientID: String, topics: TopicTree, loop: EventLoop,
          logger: Logger) throws {
        let start = Clocks.monotonic()
        let apps = scenario.peers.enumerated().compactMap { index, peer -> SimulatedPhoneApp? in
            let kind: SimulatedPhoneApp.Kind
            let app: ScenarioPhoneApp
            if let iPhoneApp = peer.iPhone?.app {
                (kind, app) = (.iPhone, iPhoneApp)
            } else if let phone = peer.phone, let androidApp = phone.app {
                (kind, app) = (.android(phone.parameters), androidApp)
            } else {
                return nil
            }
            return SimulatedPhoneApp(kind, app: app, address: UWBAddress(shortAddress: peer.address), startingAt: start,
                                     seed: scenario.seed &+ UInt64(index) &* 0x9E37_79B9, track: peer,
                                     sceneTime: { host.sceneTime(at: $0) })
        }
        guard !apps.isEmpty else { return nil }
        self.apps = apps
        self.host = host
        self.topics = topics
        self.loop = loop
        log = { logger.info("simulator: \($0)") }
        configuration = try BrokerConnection(broker: broker, clientID: clientID + "-phone-apps", will: nil).configuration(logger: logger)
    }

    func start() throws(MQTTError) {
        let client = try MQTTClient(configuration: configuration, loop: loop) { [unowned self] in handle($0) }
        self.client = client
        try client.subscribe(topic: topics.root + "/response/" + SimulatedPhoneApp.sessionRequest, qos: .atLeastOnce)
        try client.subscribe(topic: topics.root + "/response/" + SimulatedPhoneApp.startRequest, qos: .atLeastOnce)
        for app in apps { try client.subscribe(topic: topics.peer(TopicSegment.sanitize(app.name), .peerEvent), qos: .atLeastOnce) }
        try client.start()
        reschedule()
    }

    func stop() {
        if let timer { loop.cancel(timer) }
        timer = nil
        _ = client?.disconnect(timeout: .seconds(1))
        client = nil
    }

    private func handle(_ event: MQTTEvent) {
        guard case let .message(message) = event, !message.retained else { return }
        let now = Clocks.monotonic()
        let responses = topics.root + "/response/"
        for index in apps.indices {
            if message.topic.hasPrefix(responses) {
                carryOut(apps[index].answered(String(message.topic.dropFirst(responses.count)), payload: message.payload, at: now),
                         of: apps[index].name)
            } else if message.topic == topics.peer(TopicSegment.sanitize(apps[index].name), .peerEvent) {
                carryOut(apps[index].event(payload: message.payload, at: now), of: apps[index].name)
            }
        }
        reschedule()
    }

    private func timePassed() {
        timer = nil
        let now = Clocks.monotonic()
        for index in apps.indices { carryOut(apps[index].timePassed(now), of: apps[index].name) }
        reschedule()
    }

    private func reschedule() {
        if let timer { loop.cancel(timer) }
        timer = apps.compactMap(\.nextDeadline).min().map { deadline in
            loop.schedule(at: deadline) { [unowned self] in timePassed() }
        }
    }

    private func carryOut(_ outputs: [SimulatedPhoneApp.Output], of name: String) {
        for output in outputs {
            switch output {
            case let .publish(request, body):
                _ = try? client?.publish(topic: topics.root + "/request/" + request, payload: body, qos: .atLeastOnce)
            case let .run(session):
                host.startIPhone(session)
            case let .start(parameters):
                host.startPhone(parameters)
            case let .report(token, azimuth, elevation, distance):
                let payload = JSONValue.object([
                    JSONMember("token", .string(token)), JSONMember("ts", .string(Timestamp.rfc3339(Clocks.wall()))),
                    JSONMember("distance_m", distance.map { .double(($0 * 1000).rounded() / 1000) } ?? .null),
                    JSONMember("azimuth_deg", azimuth.map { .double(($0 * 10).rounded() / 10) } ?? .null),
                    JSONMember("elevation_deg", elevation.map { .double(($0 * 10).rounded() / 10) } ?? .null)]).json
                _ = try? client?.publish(topic: topics.root + "/phone/" + TopicSegment.sanitize(name) + "/report",
                                         payload: payload, qos: .atMostOnce)
            case let .log(line):
                log(line)
            }
        }
    }
}
