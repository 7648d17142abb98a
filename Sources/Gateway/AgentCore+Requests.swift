import MQTTClient
import Vocabulary

/// Requests on `<base>/<gw>/request/<name>` (mqtt-api.md): each one is answered on
/// `response/<name>` (or the MQTT 5 requester's response topic, `Reply`) with its `id`, `ok`
/// and `data` or `error`, by the component that declares its name.
extension AgentCore {
    mutating func request(_ name: String, _ message: MQTTMessage, at moment: AgentMoment) {
        switch requestIntake.admit(name: name, message) {
        case let .ignored(line):
            if let line { log(.warning, line) }
        case let .dropped(line):
            countDroppedRequest()
            log(.debug, line)
        case let .rejected(problem):
            // Debug, not info: a flood of bad requests must not flood the journal too.
            log(.debug, "rejected request \(name): \(problem.message)")
            respond(to: name, via: problem.reply, Payloads.response(id: problem.reply.id, ok: false, error: problem.message))
        case let .accepted(request):
            var answered = false
            tellComponents(moment) { component, core in
                guard !answered, let known = request.name, component.requests.contains(known) else { return }
                answered = true
                component.answer(request, &core, at: moment)
            }
            if !answered {
                respond(to: name, via: request.reply,
                        Payloads.response(id: request.id, ok: false, error: "request \(name) is not available on this agent"))
            }
        }
    }

    /// True when `request` may act now (`RequestPacing`); else it is answered with when to try
    /// again and counted. A component asks once the request is valid and would reach the device
    /// or publish, so that a malformed one costs nobody's turn.
    mutating func paced(_ request: Request, at moment: AgentMoment) -> Bool {
        guard let known = request.name, let refusal = requestPacing.admit(known, at: moment.monotonic) else { return true }
        countDroppedRequest()
        for line in refusal.logs { log(.warning, line) }
        respond(to: request, failure: refusal.answer)
        return false
    }

    /// Answers `request`: `ok` with `data`.
    mutating func respond(to request: Request, data: [JSONMember] = []) {
        respond(to: request.rawName, via: request.reply, Payloads.response(id: request.id, ok: true, data: .object(data)))
    }

    /// Answers `request`: not done, and why.
    mutating func respond(to request: Request, failure text: String) {
        respond(to: request.rawName, via: request.reply, Payloads.response(id: request.id, ok: false, error: text))
    }
}
