import DeviceLink
import EventLoop
import UCI
import Vocabulary

/// Phones as peers: `phone_session` and `phone_session_stop` requests, the sessions they open
/// on the device, and the phones' names on the core. The decisions are `PhoneSessions`'; this
/// shell feeds it the requests, the device's news, the rounds and the time, and carries out
/// what it decides.
final class PhonesComponent: AgentComponent {
    private unowned let agent: Agent
    private var sessions: PhoneSessions
    private var timer: EventLoop.Timer?

    init(agent: Agent) {
        self.agent = agent
        sessions = PhoneSessions(settings: agent.configuration.phones, gateway: Self.gateway(of: agent.configuration))
    }

    private static func gateway(of configuration: AgentConfiguration) -> PhoneSessions.Gateway {
        PhoneSessions.Gateway(address: configuration.device.address.value, channel: configuration.device.channel,
                              sessionID: configuration.device.sessionID, peers: configuration.device.peers)
    }

    /// `phone_session`: answered once the device ranges (or failed to), not before: the app
    /// starts its side with what the answer says, and the phone gives up 10 s after that.
    func phoneSession(_ request: Request) {
        switch PhoneSessionRequest.parse(request.body) {
        case let .failure(problem):
            publish(PhoneSessions.Answer(request: request.rawName, id: request.id, result: .failure(problem)))
        case let .success(phone):
            var generator = SystemRandomNumberGenerator()
            let id = UInt32.random(in: PhoneSessionRequest.sessionIDs, using: &generator)
            carryOut(sessions.request(phone, id: request.id, now: Clocks.monotonic(), sessionID: id, key: .random()))
        }
    }

    /// `phone_session_stop`: `{"name": …}`.
    func phoneSessionStop(_ request: Request) {
        guard case let .string(name)? = request.body["name"] else {
            return publish(PhoneSessions.Answer(request: request.rawName, id: request.id,
                                                result: .failure(PhoneRequestError("name is required: the phone's name from its phone_session request"))))
        }
        carryOut(sessions.stop(name: name, id: request.id, now: Clocks.monotonic()))
    }

    func deviceNews(sessionID: UInt32, _ news: RequestedSessionNews) {
        carryOut(sessions.news(sessionID: sessionID, news, now: Clocks.monotonic()))
    }

    func ranged(_ info: SessionInfo) {
        sessions.ranged(info, now: Clocks.monotonic())
    }

    func configurationReloaded() {
        sessions.gateway = Self.gateway(of: agent.configuration)
        sessions.settings = agent.configuration.phones
    }

    func stop() {
        if let timer { agent.loop.cancel(timer) }
        timer = nil
    }

    private func carryOut(_ out: PhoneSessions.Output) {
        for line in out.logs { agent.logger.info(line) }
        let now = agent.now()
        for phone in out.joined {
            agent.logger.info("phone \(phone.name) (\(WireOrderAddress.text(of: phone.address))) ranges in session \(phone.sessionID)")
            agent.phoneJoined(name: phone.name, address: phone.address, sessionID: phone.sessionID, at: now)
        }
        for address in out.left { agent.phoneLeft(address: address, at: now) }
        for event in out.deviceEvents { agent.sendToDevice(event) }
        for answer in out.answers { publish(answer) }
        armTimer()
    }

    private func publish(_ answer: PhoneSessions.Answer) {
        let fields: [JSONMember] = switch answer.result {
        case let .success(data): Payloads.response(id: answer.id, ok: true, data: .object(data))
        case let .failure(problem): Payloads.response(id: answer.id, ok: false, error: problem.message)
        }
        agent.publishResponse(agent.topics.response(answer.request), payload: Payloads.render(fields))
    }

    /// Wakes up when a phone's time without a round runs out; not at all without phones.
    private func armTimer() {
        if let timer { agent.loop.cancel(timer) }
        timer = nil
        guard let deadline = sessions.nextDeadline else { return }
        timer = agent.loop.schedule(at: deadline) { [unowned self] in
            timer = nil
            carryOut(sessions.expire(now: Clocks.monotonic()))
        }
    }
}
