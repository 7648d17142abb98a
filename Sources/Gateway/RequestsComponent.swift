import Service
import Vocabulary

/// The requests about the agent itself and its device (mqtt-api.md): `ping`, `state`,
/// `session_start`, `session_stop` and `device_reset`. A device command is refused while no
/// device is there to take it.
struct RequestsComponent: AgentComponent {
    var requests: [Request.Name] { [.ping, .state, .sessionStart, .sessionStop, .deviceReset] }

    mutating func answer(_ request: Request, _ core: inout AgentCore, at moment: AgentMoment) {
        let deviceState = core.status.deviceState
        switch request.name {
        case .ping:
            core.respond(to: request, data: [JSONMember("version", .string(AgentVersion.agent)),
                                             JSONMember("uptime_s", .int(Int64(core.uptime(at: moment))))])
        case .state:
            let peers = core.engine.states(at: moment.time).map { JSONValue.object(ProximityPayloads.state($0)) }
            core.respond(to: request, data: [JSONMember("device", .string(deviceState.name)), JSONMember("peers", .list(peers))])
        case .sessionStart, .sessionStop, .deviceReset:
            guard core.status.deviceReachable else { return core.respond(to: request, failure: "no device (\(deviceState))") }
            guard core.paced(request, at: moment) else { return }
            core.act(.device(request.name == .sessionStart ? .startRequested : request.name == .sessionStop ? .stopRequested : .resetRequested))
            core.respond(to: request)
        default:
            break
        }
    }
}
