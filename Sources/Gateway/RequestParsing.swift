import MQTTClient
import Proximity
import UCI
import Vocabulary
import RulesReading

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
                case let .setRules(bytes, origin, path, trigger):
                    // Validated as the shell would, but never written: this reads, it changes no file.
                    let rules = Result { () throws(SourceError) in try RulesFile.load(bytes: bytes, file: origin) }
                        .mapError { RulesLoading.Failure(line: $0.mark.line, column: $0.mark.column, message: $0.message, file: origin) }
                    core.handle(.rulesLoaded(rules, path: path, trigger: trigger), at: later)
                default:
                    break
                }
            }
            actions = core.takeActions()
        }
        guard let answer = core.take().first(where: { $0.delivery.isResponse }) else { return "" }
        return String(decoding: answer.payload, as: UTF8.self)
    }
}

extension RequestParsing {
    /// A phone's report through the agent's core, for the fuzzer and its tests: on the gateway of
    /// ``responseJSON(name:payload:)``, the phone `phone` asks for a session, the device ranges
    /// with it, and then one message arrives on `phone/<segment>/report` with `payload` as its
    /// body (`$TOKEN` in it replaced by the session's `report_token`, so that inputs reach past
    /// the token check). Returns the phone's `state` after it, as published, or "" when the
    /// report changed nothing.
    public static func reportOutcome(segment: String, payload: [UInt8]) -> String {
        var configuration = AgentConfiguration(device: AgentConfiguration.Device(peers: [AgentConfiguration.Peer(address: 1, name: "tag")]))
        configuration.gateway.id = "gw"
        var core = AgentCore(configuration: configuration, eventIDPrefix: "gw:report") { configuration in
            [PhonesComponent(configuration: configuration, random: Steps())]
        }
        let moment = AgentMoment(time: 1_800_000_000, monotonic: 100)
        core.handle(.started, at: moment)
        core.replaceRules((try? RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml")) ?? Rules(), at: moment.time)
        core.handle(.device(.stateChanged(.ranging, port: "/dev/ttyACM0")), at: moment)
        let ask = #"{"name": "phone", "phone_role": "controlee", "config_id": 1, "phone_address": "AB:CD"}"#
        core.handle(.message(MQTTMessage(topic: core.topics.root + "/request/phone_session", payload: Array(ask.utf8),
                                         qos: .atLeastOnce, retained: false)), at: moment)
        for action in core.takeActions() {
            if case let .device(.openSession(session)) = action {
                core.handle(.device(.requestedSession(sessionID: session.sessionID, .ranging)), at: moment)
            }
        }
        let answer = core.take().first { $0.delivery.isResponse }.map { (try? PayloadReader(bytes: $0.payload))?.value } ?? nil
        guard case let .string(token)? = answer?["data"]?["report_token"] else { fatalError("no report_token in \(String(describing: answer))") }
        let round = SessionInfo(sequenceNumber: 0, sessionHandle: 2, currentRangingInterval: 100, measurements: .twoWay([
            TwoWayRangingMeasurement(macAddress: .short(0xCDAB), status: .ok, nlosRaw: 0, distanceRaw: 150)]))
        core.handle(.device(.measurements(round, receivedAt: moment.time, monotonic: moment.monotonic,
                                          raw: RawMessage(messageType: .notification, gid: 2, oid: 0))), at: moment)
        core.clearOutbox()
        _ = core.takeActions()
        let body = replacing(Array("$TOKEN".utf8), with: Array(token.utf8), in: payload)
        let later = AgentMoment(time: moment.time + 0.05, monotonic: moment.monotonic + 0.05)
        core.handle(.message(MQTTMessage(topic: core.topics.root + "/phone/" + segment + "/report", payload: body,
                                         qos: .atMostOnce, retained: false)), at: later)
        guard let state = core.take().last(where: { $0.topic.hasSuffix("/peer/phone/state") }) else { return "" }
        return String(decoding: state.payload, as: UTF8.self)
    }
}

/// `bytes` with every `pattern` in it replaced by `replacement`.
private func replacing(_ pattern: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var index = 0
    while index < bytes.count {
        if bytes[index...].starts(with: pattern) {
            out += replacement
            index += pattern.count
        } else {
            out.append(bytes[index])
            index += 1
        }
    }
    return out
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
