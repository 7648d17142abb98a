import Service
import Vocabulary

/// The requests about the agent itself and its device (mqtt-api.md): `ping`, `state`,
/// `session_start`, `session_stop` and `device_reset`. A device command is refused while no
/// device is there to take it.
struct RequestsComponent: AgentComponent {
    var requests: [Request.Name] { [.ping, .state, .sessionStart, .sessionStop, .deviceReset] }

    mutating func answer(_ request: Request, _ core: inout AgentCore, at moment: AgentMoment) {
        switch request.name {
        case .ping:
            core.respond(to: request, data: Self.pingData.members((core, moment)))
        case .state:
            core.respond(to: request, data: Self.stateData.members((core, moment)))
        case .sessionStart, .sessionStop, .deviceReset:
            guard core.status.deviceReachable else { return core.respond(to: request, failure: "no device (\(core.status.deviceState))") }
            guard core.paced(request, at: moment) else { return }
            core.act(.device(request.name == .sessionStart ? .startRequested : request.name == .sessionStop ? .stopRequested : .resetRequested))
            core.respond(to: request)
        default:
            break
        }
    }

    /// The answer to `ping`.
    static let pingData = PayloadFields<(core: AgentCore, moment: AgentMoment)>([
        .init(.version, JSONSchema.string.described("the agent's version")) { _ in .string(AgentVersion.agent) },
        .init(.uptimeS, JSONSchema.count.described("seconds since the agent started")) { .int(Int64($0.core.uptime(at: $0.moment))) },
    ])

    /// The answer to `state`: the device's state and every peer's `state` now.
    static let stateData = PayloadFields<(core: AgentCore, moment: AgentMoment)>([
        .init(.device, .enumeration(Payloads.deviceStates)) { .string($0.core.status.deviceState.name) },
        .init(.peers, .list(of: ProximityPayloads.stateSchema)) {
            .list($0.core.engine.states(at: $0.moment.time).map(ProximityPayloads.stateValue))
        },
    ])
}
