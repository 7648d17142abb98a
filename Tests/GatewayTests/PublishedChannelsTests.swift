import DeviceLink
@testable import Gateway
import MQTTClient
import Proximity
import RulesReading
import Simulator
import Testing
import TestSupport
import UCI
import Vocabulary

/// Every message the agent's core decides on is on a channel of its topic table, delivered as that
/// channel declares (retained or not, at its QoS), with a payload its schema takes: the table the
/// AsyncAPI document lists is the one the core publishes by, not only in its addresses.
@Suite struct PublishedChannelsTests {
    static let start = AgentMoment(time: 1_800_000_000, monotonic: 500)

    func at(_ seconds: Double) -> AgentMoment {
        AgentMoment(time: Self.start.time + seconds, monotonic: Self.start.monotonic + seconds)
    }

    /// The channel of the agent's table that `topic` is on (the most literal levels first), with
    /// base `uwb2mqtt` and gateway `gw`.
    func channel(of topic: String) -> ChannelDeclaration? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let matching = ChannelDeclaration.agentChannels.filter { channel in
            channel.publisher == .service && channel.levels.count == levels.count && zip(channel.levels, levels).allSatisfy { level, text in
                switch level {
                case let .literal(literal): literal == text
                case let .parameter(parameter): parameter == .base ? text == "uwb2mqtt" : parameter == .gateway ? text == "gw" : true
                }
            }
        }
        return matching.max { a, b in a.levels.count { if case .literal = $0 { true } else { false } } < b.levels.count { if case .literal = $0 { true } else { false } } }
    }

    @Test func everyMessageOfTheCoreIsOnADeclaredChannelAsItDeclares() throws {
        var configuration = AgentConfiguration(device: AgentConfiguration.Device(peers: [AgentConfiguration.Peer(address: 1, name: "phone-anna"),
                                                                                          AgentConfiguration.Peer(address: 2, name: "Cart 1")]))
        configuration.gateway.id = "gw"
        configuration.rules = "/etc/uwb2mqtt/rules.yaml"
        configuration.mqtt.metricsInterval = TimeSpan(seconds: 30)
        var core = AgentCore(configuration: configuration, eventIDPrefix: "gw:test") { configuration in
            [RulesComponent(), RequestsComponent(), PhonesComponent(configuration: configuration, random: SplitMix64(seed: 7)),
             MetricsComponent(interval: 30, watchdogInterval: nil)]
        }
        var messages: [Outbox.Message] = []
        core.handle(.started, at: Self.start)
        _ = core.takeActions()
        let rules = try RulesFile.load(text: RulesFile.exampleYAML, file: configuration.rules)
        core.handle(.rulesLoaded(.success(rules), path: configuration.rules, trigger: .start), at: at(0.1))
        core.handle(.device(.stateChanged(.ranging, port: "/dev/ttyACM0")), at: at(0.2))
        core.handle(.brokerConnected, at: at(0.3))
        messages += core.take()

        // Both peers walk in to 0.3 m and out again, a round every 0.1 s.
        let walk = Array(stride(from: 300, through: 30, by: -10)) + Array(stride(from: 30, through: 300, by: 10))
        for (i, centimetres) in walk.enumerated() {
            let round = SessionInfo(sequenceNumber: UInt32(i), sessionHandle: 42, currentRangingInterval: 100, measurements: .twoWay([
                TwoWayRangingMeasurement(macAddress: .short(1), status: .ok, nlosRaw: 0, distanceRaw: UInt16(centimetres)),
                TwoWayRangingMeasurement(macAddress: .short(2), status: i % 7 == 3 ? .rangingRxTimeout : .ok, nlosRaw: 0,
                                         distanceRaw: i % 7 == 3 ? 0xFFFF : UInt16(centimetres + 40)),
            ]))
            core.ranging(round, at: at(1 + Double(i) * 0.1).time)
            messages += core.take()
        }
        for name in ["ping", "state", "frobnicate", "session_stop", "phone_session_stop"] {
            let body = name == "phone_session_stop" ? #"{"id": "x", "name": "nobody"}"# : #"{"id": 7}"#
            core.handle(.message(MQTTMessage(topic: "uwb2mqtt/gw/request/\(name)", payload: Array(body.utf8), qos: .atLeastOnce, retained: false)),
                        at: at(12))
            messages += core.take()
        }
        core.handle(.timePassed(publisher: PublisherFigures(queued: 1, spooled: 0, dropped: 2)), at: at(30))
        for step in 1...40 { core.tick(at: at(30 + Double(step) * 0.1).time) }
        messages += core.take()

        var seen: Set<String> = []
        for message in messages {
            guard let channel = channel(of: message.topic) else {
                Issue.record("\(message.topic): on no channel of the topic table")
                continue
            }
            seen.insert(channel.id)
            switch message.delivery {
            case let .durable(retain): #expect(channel.retained == retain && channel.qos == 1, "\(message.topic): \(message.delivery)")
            case let .live(qos): #expect(!channel.retained && channel.qos == qos && channel.live, "\(message.topic): \(message.delivery)")
            case .response: #expect(!channel.retained && channel.qos == 1 && channel.levels.contains(.literal("response")), "\(message.topic)")
            }
            if message.payload.isEmpty {
                #expect(channel.retained, "\(message.topic): empty, not retained")
                continue
            }
            let problems = JSONSchemaValidator(root: .null).problems(try JSONReader.value(message.payload), against: channel.payload.value)
            #expect(problems == [], "\(message.topic): \(String(decoding: message.payload, as: UTF8.self))")
        }
        #expect(seen.isSuperset(of: ["device", "rules", "peerRange", "peerState", "peerFeedback", "peerEvent", "ranking", "metrics",
                                     "pingResponse", "stateResponse", "response", "sessionStopResponse", "phoneSessionStopResponse"]),
                "\(seen.sorted())")
    }
}
