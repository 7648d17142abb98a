/// The request parser's entry for the fuzzer (`Tests/Fuzz`): parses and renders the response a
/// request would get, which must never trap whatever the topic name and body.
public enum RequestParsing {
    public static func responseJSON(name: String, payload: [UInt8]) -> String {
        switch Request.parse(name: name, payload: payload) {
        case let .failure(problem): FieldRendering.json(Payloads.response(id: problem.id, ok: false, error: problem.message))
        case let .success(request): FieldRendering.json(Payloads.response(id: request.id, ok: true))
        }
    }
}
