import EventLoop
import MQTTClient
import UCI

/// Requests on `<base>/<gw>/request/<name>` (mqtt-api.md): each one is answered on
/// `response/<name>` with its `id`, `ok` and `data` or `error`; a malformed one gets an error
/// answer, never silence.
final class RequestsComponent: AgentComponent {
    private unowned let agent: Agent

    init(agent: Agent) {
        self.agent = agent
    }

    var subscriptions: [String] { [agent.topics.requestFilter] }

    func receive(_ message: MQTTMessage) -> Bool {
        guard let name = agent.topics.requestName(of: message.topic) else { return false }
        let response: [Field]
        switch Request.parse(name: name, payload: message.payload) {
        case let .failure(problem):
            // Debug, not info: a flood of bad requests must not flood the journal too.
            agent.logger.debug("rejected request \(name): \(problem.message)")
            response = Payloads.response(id: problem.id, ok: false, error: problem.message)
        case let .success(request):
            response = answer(request)
        }
        agent.publishResponse(agent.topics.response(name), payload: Payloads.render(response))
        return true
    }

    private func answer(_ request: Request) -> [Field] {
        func ok(_ data: [Field] = []) -> [Field] { Payloads.response(id: request.id, ok: true, data: .object(data)) }
        func failure(_ text: String) -> [Field] { Payloads.response(id: request.id, ok: false, error: text) }
        let deviceState = agent.deviceState
        let deviceReachable = !(deviceState == .opening || deviceState.name == "absent")
        switch request.name! {
        case .ping:
            return ok([Field("version", .string(AgentVersion.agent)), Field("uptime_s", .int(Int64(agent.uptimeSeconds)))])
        case .state:
            let peers = agent.core.engine.states(at: Clocks.wall()).map { FieldValue.object(ProximityPayloads.state($0)) }
            return ok([Field("device", .string(deviceState.name)), Field("peers", .list(peers))])
        case .sessionStart:
            guard deviceReachable else { return failure("no device (\(deviceState))") }
            agent.sendToDevice(.startRequested)
            return ok()
        case .sessionStop:
            guard deviceReachable else { return failure("no device (\(deviceState))") }
            agent.sendToDevice(.stopRequested)
            return ok()
        case .deviceReset:
            guard deviceReachable else { return failure("no device (\(deviceState))") }
            agent.sendToDevice(.resetRequested)
            return ok()
        case .reloadRules:
            if let problem = agent.reloadRules() { return failure(problem.description) }
            return ok([Field("sha256", .string(agent.core.engine.rules.sha256)), Field("source", .string(agent.configuration.rules))])
        }
    }
}
