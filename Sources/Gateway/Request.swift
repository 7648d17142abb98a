import FoundationEssentials
import UCI

/// A request received on `<base>/<gw>/request/<name>` (mqtt-api.md, "requests"): the body is
/// empty or a JSON object, optionally with an `id` that the response echoes.
struct Request: Sendable {
    enum Name: String, CaseIterable, Sendable {
        case ping, state
        case reloadRules = "reload_rules"
        case sessionStart = "session_start"
        case sessionStop = "session_stop"
        case deviceReset = "device_reset"
    }

    /// The raw name from the topic; the response goes to `response/<sanitized name>`.
    let rawName: String
    let name: Name?
    let id: FieldValue?
    /// The body's members (empty for an empty body).
    let body: [String: FieldValue]

    /// A body is refused above this size before it is decoded (mqtt-api.md, request limits):
    /// every request the agent knows fits in a few hundred bytes, and the decoding runs on the
    /// agent's loop.
    static let maximumBodyBytes = 4096
    /// The longest `id` string echoed back (characters).
    static let maximumIDLength = 128

    /// Parses a request, or says what is wrong with it (the response then has `ok: false`).
    static func parse(name: String, payload: [UInt8]) -> Result<Request, RequestError> {
        let known = Name(rawValue: name)
        guard payload.count <= maximumBodyBytes else {
            return .failure(RequestError(name: name, id: nil,
                                         message: "the request body is \(payload.count) bytes; the limit is \(maximumBodyBytes) bytes (4 KiB)"))
        }
        let text = String(decoding: payload, as: UTF8.self).trimmingWhitespace()
        if text.isEmpty {
            return known.map { .success(Request(rawName: name, name: $0, id: nil, body: [:])) }
                ?? .failure(RequestError(name: name, id: nil, message: unknownMessage(name)))
        }
        // Anything but an object is refused before the JSON decoder sees it: a flood of
        // malformed requests (make soak) is mostly arrays, strings and garbage, and a deeply
        // nested array cost the decoder most of the agent's time per request.
        guard text.utf8.first == UInt8(ascii: "{"),
              let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), case let .object(fields) = value.value else {
            return .failure(RequestError(name: name, id: nil, message: "the request body is not a JSON object"))
        }
        let object = Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        let id = object["id"]
        switch id {
        case nil, .int?: break
        case let .string(text)? where text.count <= maximumIDLength: break
        default:
            // Not echoed: an answer never carries more than the limits allow.
            return .failure(RequestError(name: name, id: nil,
                                         message: "id must be a string of at most \(maximumIDLength) characters or an integer"))
        }
        guard let known else { return .failure(RequestError(name: name, id: id, message: unknownMessage(name))) }
        return .success(Request(rawName: name, name: known, id: id, body: object))
    }

    static func unknownMessage(_ name: String) -> String {
        "unknown request \"\(name)\" (known: \(Name.allCases.map(\.rawValue).joined(separator: ", ")))"
    }
}

struct RequestError: Error, Sendable {
    let name: String
    let id: FieldValue?
    let message: String
}

/// Any JSON value, decoded strictly (a boolean is never a number), as a `FieldValue` so that a
/// request's `id` is echoed exactly as it was sent.
struct JSONValue: Decodable {
    let value: FieldValue

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            value = .object(try container.allKeys.sorted { $0.stringValue < $1.stringValue }.map {
                Field($0.stringValue, try container.decode(JSONValue.self, forKey: $0).value)
            })
        } else if var container = try? decoder.unkeyedContainer() {
            var items: [FieldValue] = []
            while !container.isAtEnd { items.append(try container.decode(JSONValue.self).value) }
            value = .list(items)
        } else {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { value = .null }
            else if let bool = try? container.decode(Bool.self) { value = .bool(bool) }
            else if let int = try? container.decode(Int64.self) { value = .int(int) }
            else if let double = try? container.decode(Double.self) { value = .double(double) }
            else { value = .string(try container.decode(String.self)) }
        }
    }

    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

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
