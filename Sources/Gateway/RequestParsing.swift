import MQTTClient

/// The request path's entry for the fuzzer (`Tests/Fuzz`) and its tests: one request message
/// through the agent's core — the intake's limits, the parser, the component that answers it —
/// on a gateway with one tag whose device ranges. Returns the answer's payload, which must be a
/// JSON object whatever the name and body, or "" when the request was dropped unanswered (a name
/// longer than `RequestIntake.maximumNameLength`). A `phone_session` is answered once the device
/// reports its session ranging, as the device would; `reload_rules` once the rules file (the
/// configuration's default path, absent in a fuzzing run) has been read, as the shell reads it.
public enum RequestParsing {
    public static func responseJSON(name: String, payload: [UInt8]) -> String {
        var configuration = AgentConfiguration(device: AgentConfiguration.Device(peers: [AgentConfiguration.Peer(address: 1, name: "tag")]))
        configuration.gateway.id = "gw"
        var core = AgentCore(configuration: configuration, eventIDPrefix: "gw:request") { configuration in
            [RequestsComponent(), RulesComponent(), PhonesComponent(configuration: configuration, random: Steps())]
        }
        let moment = AgentMoment(time: 1_800_000_000, monotonic: 100)
        core.handle(.started, at: moment)
        core.handle(.device(.stateChanged(.ranging, port: "/dev/ttyACM0")), at: moment)
        core.clearOutbox()
        _ = core.takeActions()
        let topic = core.topics.root + "/request/" + name
        core.handle(.message(MQTTMessage(topic: topic, payload: payload, qos: .atLeastOnce, retained: false)), at: moment)
        // What the shell carries out for the answer: the rules read (as `Agent` reads them), a
        // phone's session opened (as the device reports it). Until nothing is left to do: an
        // answer that waits for an action nobody carries out would be one the agent never sends.
        let later = AgentMoment(time: moment.time + 0.1, monotonic: moment.monotonic + 0.1)
        var actions = core.takeActions()
        while !actions.isEmpty {
            for action in actions {
                switch action {
                case let .device(.openSession(session)):
                    core.handle(.device(.requestedSession(sessionID: session.sessionID, .ranging)), at: later)
                case let .loadRules(path, trigger):
                    core.handle(.rulesLoaded(RulesLoading.load(path: path), path: path, trigger: trigger), at: later)
                default:
                    break
                }
            }
            actions = core.takeActions()
        }
        guard let answer = core.take().first(where: { $0.delivery == .response }) else { return "" }
        return String(decoding: answer.payload, as: UTF8.self)
    }
}

/// The phones' random choices in a fuzzing run: the same on every run, so that an input that
/// fails once fails again.
private struct Steps: RandomNumberGenerator {
    private var state: UInt64 = 0
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return state
    }
}
