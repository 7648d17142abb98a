import UCI
import Vocabulary

/// The request parser's entry for the fuzzer (`Tests/Fuzz`): parses and renders the response a
/// request would get, which must never trap whatever the topic name and body. A `phone_session`
/// goes on through the phone exchange's decisions too (against a gateway with one tag), as far as
/// what would be sent to the device.
public enum RequestParsing {
    public static func responseJSON(name: String, payload: [UInt8]) -> String {
        switch Request.parse(name: name, payload: payload) {
        case let .failure(problem):
            return FieldRendering.json(Payloads.response(id: problem.id, ok: false, error: problem.message))
        case let .success(request) where request.name == .phoneSession:
            switch PhoneSessionRequest.parse(request.body) {
            case let .failure(problem):
                return FieldRendering.json(Payloads.response(id: request.id, ok: false, error: problem.message))
            case let .success(phone):
                var phones = PhoneSessions(settings: PhoneSettings(), gateway: PhoneSessions.Gateway(
                    address: 0, channel: 9, sessionID: 42, peers: [AgentConfiguration.Peer(address: 1, name: "tag")]))
                let key = SessionKeyInfo([1, 2, 3, 4, 5, 6, 7, 8])!
                let opened = phones.request(phone, id: request.id, now: 0, sessionID: 7, key: key)
                let answered = opened.answers + phones.news(sessionID: phone.sessionID ?? 7, .ranging, now: 0.1).answers
                guard let answer = answered.first else { return FieldRendering.json(Payloads.response(id: request.id, ok: true)) }
                return switch answer.result {
                case let .success(data): FieldRendering.json(Payloads.response(id: answer.id, ok: true, data: .object(data)))
                case let .failure(problem): FieldRendering.json(Payloads.response(id: answer.id, ok: false, error: problem.message))
                }
            }
        case let .success(request):
            return FieldRendering.json(Payloads.response(id: request.id, ok: true))
        }
    }
}
