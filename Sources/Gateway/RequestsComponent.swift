import Vocabulary
import EventLoop
import MQTTClient
import UCI

/// Requests on `<base>/<gw>/request/<name>` (mqtt-api.md): each one is answered on
/// `response/<name>` with its `id`, `ok` and `data` or `error`; a malformed one gets an error
/// answer, never silence.
///
/// Limits (mqtt-api.md, request limits): a retained request is ignored, a name longer than a
/// topic segment may be is dropped unanswered, and a rules reload comes at most once a second;
/// what is dropped is counted in `metrics` (`requests_dropped`).
final class RequestsComponent: AgentComponent {
    private unowned let agent: Agent
    /// Request topics whose retained message was ignored and logged (each once; bounded).
    private var retainedLogged: Set<String> = []
    private var lastReloadAt = -Double.infinity

    /// Reloads (which each publish the retained `rules`, and re-announce Home Assistant
    /// entities) are coalesced to one per this many seconds.
    static let reloadInterval = 1.0
    /// The longest request name answered: a topic segment's limit.
    static let maximumNameLength = 64

    init(agent: Agent) {
        self.agent = agent
    }

    var subscriptions: [String] { [agent.topics.requestFilter] }

    func receive(_ message: MQTTMessage) -> Bool {
        guard let name = agent.topics.requestName(of: message.topic) else { return false }
        if message.retained {
            // A request is an act of now, not a standing order: a retained `session_stop` would
            // otherwise stop ranging after every restart of the agent or the broker.
            if retainedLogged.count < 64, retainedLogged.insert(message.topic).inserted {
                agent.logger.warning("ignored the retained message on \(message.topic): requests are not retained; "
                                     + "clear it with: mosquitto_pub -r -n -t '\(message.topic)'")
            }
            return true
        }
        guard name.count <= Self.maximumNameLength else {
            agent.countDroppedRequest()
            agent.logger.debug("dropped a request with a \(name.utf8.count)-byte name")
            return true
        }
        let response: [JSONMember]
        switch Request.parse(name: name, payload: message.payload) {
        case let .failure(problem):
            // Debug, not info: a flood of bad requests must not flood the journal too.
            agent.logger.debug("rejected request \(name): \(problem.message)")
            response = Payloads.response(id: problem.id, ok: false, error: problem.message)
        case let .success(request):
            guard let answer = answer(request) else { return true }
            response = answer
        }
        agent.publishResponse(agent.topics.response(name), payload: Payloads.render(response))
        return true
    }

    /// The answer, or nil when the feature that handles the request answers it itself, later.
    private func answer(_ request: Request) -> [JSONMember]? {
        func ok(_ data: [JSONMember] = []) -> [JSONMember] { Payloads.response(id: request.id, ok: true, data: .object(data)) }
        func failure(_ text: String) -> [JSONMember] { Payloads.response(id: request.id, ok: false, error: text) }
        let deviceState = agent.deviceState
        let deviceReachable = !(deviceState == .opening || deviceState.name == "absent")
        switch request.name! {
        case .ping:
            return ok([JSONMember("version", .string(AgentVersion.agent)), JSONMember("uptime_s", .int(Int64(agent.uptimeSeconds)))])
        case .state:
            let peers = agent.core.engine.states(at: agent.now()).map { JSONValue.object(ProximityPayloads.state($0)) }
            return ok([JSONMember("device", .string(deviceState.name)), JSONMember("peers", .list(peers))])
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
            let now = Clocks.monotonic()
            guard now - lastReloadAt >= Self.reloadInterval else {
                agent.countDroppedRequest()
                return failure("the rules were reloaded less than a second ago; at most one reload per second")
            }
            lastReloadAt = now
            if let problem = agent.reloadRules() { return failure(problem.description) }
            return ok([JSONMember("sha256", .string(agent.core.engine.rules.sha256)), JSONMember("source", .string(agent.configuration.rules))])
        case .phoneSession:
            guard deviceReachable else { return failure("no device (\(deviceState))") }
            agent.phones.phoneSession(request)
            return nil
        case .phoneSessionStop:
            agent.phones.phoneSessionStop(request)
            return nil
        }
    }
}
