import Service
import DeviceLink
import Foundation
@testable import Gateway
import MQTTClient
import Proximity
import Simulator
import Testing
import UCI
import Vocabulary
import RulesReading

/// The core's inputs besides ranging rounds — requests, MQTT events, the device link, rules read
/// again, the passing of time — and what it decides for each: messages and actions as values,
/// with the moment passed in and nothing read from a clock.
@Suite struct AgentCoreInputTests {
    static let start = AgentMoment(time: 1_800_000_000, monotonic: 500)

    func core(homeAssistant: Bool = false, watchdog: Double? = nil) -> AgentCore {
        var configuration = AgentConfiguration(device: AgentConfiguration.Device(peers: [AgentConfiguration.Peer(address: 1, name: "cart")]))
        configuration.gateway.id = "gw"
        configuration.rules = "/etc/uwb2mqtt/rules.yaml"
        configuration.mqtt.homeAssistant = homeAssistant
        configuration.mqtt.metricsInterval = TimeSpan(seconds: 30)
        var core = AgentCore(configuration: configuration, eventIDPrefix: "gw:test") { configuration in
            var list: [any AgentComponent] = []
            if homeAssistant { list.append(HomeAssistantComponent(topics: configuration.topics, gatewayID: "gw")) }
            list += [RulesComponent() as any AgentComponent, RequestsComponent(),
                     PhonesComponent(configuration: configuration, random: SplitMix64(seed: 7)),
                     MetricsComponent(interval: 30, watchdogInterval: watchdog)]
            return list
        }
        core.handle(.started, at: Self.start)
        _ = core.takeActions()
        return core
    }

    func after(_ seconds: Double) -> AgentMoment {
        AgentMoment(time: Self.start.time + seconds, monotonic: Self.start.monotonic + seconds)
    }

    func message(_ name: String, _ body: String = "", retained: Bool = false) -> AgentInput {
        .message(MQTTMessage(topic: "uwb2mqtt/gw/request/\(name)", payload: Array(body.utf8), qos: .atLeastOnce, retained: retained))
    }

    func object(_ message: Outbox.Message) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any]) ?? [:]
    }

    /// The answers in the outbox, as (topic, payload object).
    func responses(_ core: inout AgentCore) -> [(String, [String: Any])] {
        core.take().filter { $0.delivery.isResponse }.map { ($0.topic, object($0)) }
    }

    func logs(_ actions: [AgentAction]) -> [String] {
        actions.compactMap { if case let .log(_, text) = $0 { text } else { nil } }
    }

    func deviceCommands(_ actions: [AgentAction]) -> [String] {
        actions.compactMap { if case let .device(event) = $0 { "\(event)" } else { nil } }
    }

    @Test func startingWatchesTheRulesFileReadsItAndFeedsTheWatchdog() {
        var configuration = AgentConfiguration(device: AgentConfiguration.Device(peers: []))
        configuration.rules = "/srv/rules.yaml"
        var core = AgentCore(configuration: configuration, eventIDPrefix: "gw:test") { _ in
            [RulesComponent(), MetricsComponent(interval: 30, watchdogInterval: 10)]
        }
        core.handle(.started, at: Self.start)
        let actions = core.takeActions().map { action -> String in
            switch action {
            case let .loadRules(path, .start): "load \(path)"
            case let .watchRules(path): "watch \(path)"
            case .feedWatchdog: "watchdog"
            default: "other"
            }
        }
        #expect(actions == ["watch /srv/rules.yaml", "load /srv/rules.yaml", "watchdog"])
        // The watchdog's next feed is the core's next wake-up, in monotonic time.
        #expect(core.nextWake == Self.start.monotonic + 10)
    }

    @Test func pingIsAnsweredWithTheUptimeOfTheMomentsPassedIn() {
        var core = core()
        core.handle(message("ping", #"{"id": "p1"}"#), at: after(42.7))
        let answers = responses(&core)
        #expect(answers.count == 1)
        #expect(answers.first?.0 == "uwb2mqtt/gw/response/ping")
        let answer = answers.first?.1 ?? [:]
        #expect(answer["id"] as? String == "p1" && answer["ok"] as? Bool == true)
        #expect((answer["data"] as? [String: Any])?["uptime_s"] as? Int == 42)
    }

    @Test func aDeviceCommandIsAnActionAndRefusedWithoutADevice() {
        var core = core()
        core.handle(message("session_stop"), at: after(1))
        #expect(responses(&core).first?.1["error"] as? String == "no device (absent)")
        #expect(deviceCommands(core.takeActions()).isEmpty)

        core.handle(.device(.stateChanged(.ranging, port: "/dev/ttyACM0")), at: after(2))
        #expect(core.take().contains { $0.topic == "uwb2mqtt/gw/device" && object($0)["state"] as? String == "ranging" })
        _ = core.takeActions()
        core.handle(message("session_stop"), at: after(3))
        #expect(responses(&core).first?.1["ok"] as? Bool == true)
        #expect(deviceCommands(core.takeActions()) == ["stopRequested"])
    }

    @Test func theRequestLimitsHoldBeforeAnyComponentHearsOfARequest() {
        var core = core()
        // A retained request is not acted on, and said once per topic; an empty retained one
        // clears such a request (it arrives retained with retain-as-published): nothing is said.
        core.handle(message("session_stop", "{}", retained: true), at: after(1))
        core.handle(message("session_stop", "{}", retained: true), at: after(2))
        core.handle(message("device_reset", retained: true), at: after(2))
        #expect(core.take().isEmpty)
        let said = logs(core.takeActions())
        #expect(said.filter { $0.contains("ignored the retained message") }.count == 1 && !said.contains { $0.contains("device_reset") })
        // A name longer than a topic segment is dropped unanswered and counted.
        core.handle(message(String(repeating: "x", count: 65)), at: after(3))
        #expect(core.take().isEmpty)
        // A malformed body and an unknown name are answered with an error.
        core.handle(message("ping", "[1]"), at: after(4))
        core.handle(message("frobnicate", #"{"id": 5}"#), at: after(5))
        let answers = responses(&core)
        #expect(answers.map(\.0) == ["uwb2mqtt/gw/response/ping", "uwb2mqtt/gw/response/frobnicate"])
        #expect(answers.allSatisfy { $0.1["ok"] as? Bool == false })
        #expect(answers.last?.1["id"] as? Int == 5)
        core.handle(.timePassed(publisher: PublisherFigures()), at: after(30))
        let metrics = core.take().first { $0.topic == "uwb2mqtt/gw/metrics" }.map(object)
        #expect(metrics?["requests_dropped"] as? Int == 1)
    }

    @Test func reloadRulesIsAnsweredWhenTheShellHasReadTheFile() throws {
        var core = core()
        core.handle(message("reload_rules", #"{"id": 1}"#), at: after(1))
        #expect(core.take().isEmpty)
        let actions = core.takeActions()
        guard case let .loadRules(path, .request(request))? = actions.first else {
            Issue.record("no load of the rules: \(actions)")
            return
        }
        #expect(path == "/etc/uwb2mqtt/rules.yaml")
        let rules = try RulesFile.load(text: RulesFile.exampleYAML, file: path)
        core.handle(.rulesLoaded(.success(rules), path: path, trigger: .request(request)), at: after(1.01))
        let messages = core.take()
        #expect(messages.contains { $0.topic == "uwb2mqtt/gw/rules" && $0.delivery == .durable(retain: true) && object($0)["ok"] as? Bool == true })
        let answer = messages.last.map(object) ?? [:]
        #expect(messages.last?.topic == "uwb2mqtt/gw/response/reload_rules" && answer["ok"] as? Bool == true)
        #expect((answer["data"] as? [String: Any])?["sha256"] as? String == rules.sha256)
        #expect(core.engine.rules.sha256 == rules.sha256)

        // A second reload within the second is refused without reading the file, and counted.
        _ = core.takeActions()
        core.handle(message("reload_rules"), at: after(1.5))
        #expect(responses(&core).first?.1["ok"] as? Bool == false)
        #expect(!core.takeActions().contains { if case .loadRules = $0 { true } else { false } })

        // A broken file keeps the active rules and says why, with the file's line and column.
        core.handle(message("reload_rules"), at: after(3))
        guard case let .loadRules(_, trigger)? = core.takeActions().first else {
            Issue.record("no load of the rules")
            return
        }
        let failure = RulesLoading.Failure(line: 3, column: 5, message: "unknown key", file: path)
        core.handle(.rulesLoaded(.failure(failure), path: path, trigger: trigger), at: after(3.01))
        let refused = core.take()
        #expect(object(refused.first { $0.topic == "uwb2mqtt/gw/rules" }!)["ok"] as? Bool == false)
        #expect(refused.last.map(object)?["error"] as? String == "/etc/uwb2mqtt/rules.yaml:3:5: unknown key")
        #expect(core.engine.rules.sha256 == rules.sha256)
    }

    @Test func metricsComeAtTheirDeadlineWithThePublishersFiguresAndTheDevicesCounts() {
        var core = core()
        for state: DeviceLinkState in [.ranging, .absent(nil), .opening, .ranging] {
            core.handle(.device(.stateChanged(state, port: "/dev/ttyACM0")), at: after(1))
        }
        core.handle(.brokerConnected, at: after(2))
        core.handle(.brokerDisconnected(.failed(.connectionLost(reason: "closed by the broker"))), at: after(20))
        core.handle(.brokerConnected, at: after(25))
        _ = core.take()
        #expect(core.nextWake == Self.start.monotonic + 30)
        core.handle(.timePassed(publisher: PublisherFigures()), at: after(29.9))
        #expect(!core.take().contains { $0.topic == "uwb2mqtt/gw/metrics" })
        core.handle(.timePassed(publisher: PublisherFigures(queued: 3, spooled: 2, dropped: 1)), at: after(30))
        let metrics = core.take().first { $0.topic == "uwb2mqtt/gw/metrics" }.map(object) ?? [:]
        #expect(metrics["uptime_s"] as? Int == 30)
        #expect(metrics["publish_queue"] as? Int == 3 && metrics["spooled"] as? Int == 2 && metrics["dropped"] as? Int == 1)
        #expect(metrics["device_reconnects"] as? Int == 1 && metrics["broker_reconnects"] as? Int == 1)
        #expect(core.nextWake == Self.start.monotonic + 60)
    }

    @Test func aClientIDInUseIsSaidOnceAfterThreeQuickDrops() {
        var core = core()
        var warnings: [String] = []
        for round in 0..<4 {
            core.handle(.brokerConnected, at: after(Double(round) * 5))
            core.handle(.brokerDisconnected(.failed(.connectionLost(reason: "closed by the broker"))), at: after(Double(round) * 5 + 1))
            warnings += logs(core.takeActions()).filter { $0.contains("client id") }
        }
        #expect(warnings.count == 1)
    }

    /// A broker closes the connection of a client whose packet is over its limit, without a
    /// reason; the journal sends the retained message again at every reconnect. The log names
    /// the packet, once, and does not blame a client id it cannot know about.
    @Test func quickDropsAfterALargePacketNameThePacketNotTheClientID() {
        var core = core()
        let rules = PublishedPacket(topic: "uwb2mqtt/gw/rules", payloadBytes: 66_000, qos: 1)
        #expect(rules.bytes == 1 + 3 + 2 + 17 + 2 + 66_000)
        var warnings: [String] = []
        for round in 0..<4 {
            core.handle(.brokerConnected, at: after(Double(round) * 5))
            core.handle(.brokerDisconnected(.failed(.connectionLost(reason: "closed by the broker")), largestPublished: rules),
                        at: after(Double(round) * 5 + 0.1))
            warnings += logs(core.takeActions()).filter { $0.contains("the broker closed the connection") }
        }
        #expect(warnings == ["the broker closed the connection within seconds of connecting, after the agent sent a 66025-byte packet on "
                             + "uwb2mqtt/gw/rules: a broker closes the connection of a client whose packet is over its limit (mosquitto: "
                             + "max_packet_size), and a retained message is sent again at every reconnect; raise the broker's limit"])

        // Small packets only: that is no reason, and the client id is the suspect again.
        let small = PublishedPacket(topic: "uwb2mqtt/gw/peer/cart/range", payloadBytes: 300, qos: 0)
        core.handle(.brokerConnected, at: after(30))
        core.handle(.brokerDisconnected(.failed(.connectionLost(reason: "closed by the broker"))), at: after(45))
        warnings = []
        for round in 0..<3 {
            core.handle(.brokerConnected, at: after(50 + Double(round) * 5))
            core.handle(.brokerDisconnected(.failed(.connectionLost(reason: "closed by the broker")), largestPublished: small),
                        at: after(50 + Double(round) * 5 + 1))
            warnings += logs(core.takeActions()).filter { $0.contains("the broker closed the connection") }
        }
        #expect(warnings.count == 1 && warnings.first?.contains("another client may be using the client id") == true, "\(warnings)")
    }

    @Test func aFloodOfHomeAssistantOnlineIsOneAnnouncementAtTheEndOfTheSecond() {
        var core = core(homeAssistant: true)
        let online = AgentInput.message(MQTTMessage(topic: "homeassistant/status", payload: Array("online".utf8), qos: .atLeastOnce, retained: false))
        func announcements(_ core: inout AgentCore) -> Int {
            core.take().filter { $0.topic.hasPrefix("homeassistant/") && !$0.payload.isEmpty }.count
        }
        core.handle(.brokerConnected, at: after(1))
        let perAnnouncement = announcements(&core)
        #expect(perAnnouncement > 0)
        for step in 1...10 { core.handle(online, at: after(1 + Double(step) * 0.05)) }
        #expect(announcements(&core) == 0)
        #expect(core.nextWake == Self.start.monotonic + 2)
        core.handle(.timePassed(publisher: PublisherFigures()), at: after(2))
        #expect(announcements(&core) == perAnnouncement)
        #expect(core.nextWake == Self.start.monotonic + 30)
    }

    /// Anyone on the broker can retain discovery configs under the gateway's node: each is
    /// cleared, and the log says so once per 10 s, not once per config.
    @Test func foreignDiscoveryConfigsAreClearedWithOneLogLine() {
        var core = core(homeAssistant: true)
        core.handle(.brokerConnected, at: after(1))
        _ = core.take()
        _ = core.takeActions()
        for n in 0..<50 {
            let topic = "homeassistant/sensor/uwb2mqtt_gw/fake\(n)/config"
            core.handle(.message(MQTTMessage(topic: topic, payload: Array("{}".utf8), qos: .atLeastOnce, retained: true)), at: after(2))
        }
        let cleared = core.take().filter { $0.topic.hasPrefix("homeassistant/sensor/uwb2mqtt_gw/fake") && $0.payload.isEmpty }
        #expect(cleared.count == 50)
        let lines = logs(core.takeActions()).filter { $0.contains("Home Assistant entity") }
        #expect(lines.count == 1, "\(lines)")
    }

    @Test func aReloadedConfigurationReconfiguresTheSessionAndReadsTheRulesFromTheirNewPath() {
        var core = core()
        var new = core.configuration
        new.device.peers.append(AgentConfiguration.Peer(address: 2, name: "anna"))
        new.rules = "/srv/other.yaml"
        core.handle(.configurationReloaded(.success(new)), at: after(5))
        let actions = core.takeActions()
        #expect(deviceCommands(actions).count == 1 && deviceCommands(actions).first?.hasPrefix("reconfigure") == true)
        #expect(actions.contains { if case .watchRules("/srv/other.yaml") = $0 { true } else { false } })
        #expect(actions.contains { if case .loadRules("/srv/other.yaml", .signal) = $0 { true } else { false } })

        // A configuration that cannot be read keeps the running one; the rules are read again.
        core.handle(.configurationReloaded(.failure(ConfigurationError("agent.yaml:2:1: bad"))), at: after(6))
        let kept = core.takeActions()
        #expect(logs(kept).contains { $0.contains("keeping the running configuration") })
        #expect(deviceCommands(kept).isEmpty)
        #expect(core.configuration.device.peers.count == 2)
    }

    @Test func aStallIsExcusedAndSaidOncePerMinute() {
        var core = core()
        core.handle(.stalled(seconds: 3.04), at: after(10))
        core.handle(.stalled(seconds: 2), at: after(20))
        let lines = logs(core.takeActions())
        #expect(lines == ["the agent did not run for 3.0 s; the tags' silence meanwhile does not count as signal loss"])
    }
}
