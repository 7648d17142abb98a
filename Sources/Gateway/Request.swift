import Vocabulary
import UCI

/// A request received on `<base>/<gw>/request/<name>` (mqtt-api.md, "requests"): the body is
/// empty or a JSON object, optionally with an `id` that the response echoes.
public struct Request: Sendable {
    enum Name: String, CaseIterable, Sendable {
        case ping, state
        case reloadRules = "reload_rules"
        case sessionStart = "session_start"
        case sessionStop = "session_stop"
        case deviceReset = "device_reset"
        case phoneSession = "phone_session"
        case phoneSessionStop = "phone_session_stop"
        case phoneSessionStart = "phone_session_start"
        case rulesGet = "rules_get"
        case rulesSet = "rules_set"

        /// The largest body taken: a whole rules file for `rules_set`, a few hundred bytes for
        /// every other request.
        var maximumBodyBytes: Int { self == .rulesSet ? RulesOverMQTT.maximumBytes : Request.maximumBodyBytes }
    }

    /// The raw name from the topic; the response goes to `response/<sanitized name>` unless the
    /// requester gave a response topic (`reply`).
    let rawName: String
    let name: Name?
    /// How the answer reaches the requester, with the request's `id`.
    let reply: Reply
    var id: JSONValue? { reply.id }
    /// The body's members (empty for an empty body).
    let body: [String: JSONValue]

    /// A body is refused above this size before it is decoded (mqtt-api.md, request limits):
    /// every request the agent knows but `rules_set` fits in a few hundred bytes, and the
    /// decoding runs on the agent's loop.
    static let maximumBodyBytes = 4096
    /// The largest packet the agent takes from the broker (MQTT 5's Maximum Packet Size in
    /// CONNECT): the largest body (`rules_set`'s) with room for a topic and properties. The
    /// broker never delivers a larger one; on MQTT 3.1.1 its body is not copied and the answer
    /// says how large it was.
    static let maximumPacketBytes = RulesOverMQTT.maximumBytes + 4096
    /// The longest `id` string echoed back (characters).
    static let maximumIDLength = 128

    /// Parses a request, or says what is wrong with it (the response then has `ok: false`).
    /// `size` is the body's size in bytes: more than `payload` when the client did not copy an
    /// oversized body. `reply` is where the answer goes; the body's `id` is added to it.
    static func parse(name: String, payload: [UInt8], size: Int, reply: Reply) -> Result<Request, RequestError> {
        let known = Name(rawValue: name)
        let limit = known?.maximumBodyBytes ?? maximumBodyBytes
        guard size <= limit, payload.count <= limit else {
            return .failure(RequestError(name: name, reply: reply,
                                         message: "the request body is \(size) bytes; the limit is \(limit) bytes (\(limit >> 10) KiB)"))
        }
        if payload.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            return known.map { .success(Request(rawName: name, name: $0, reply: reply, body: [:])) }
                ?? .failure(RequestError(name: name, reply: reply, message: unknownMessage(name)))
        }
        // `rules_set` also takes a rules file as it is (`mosquitto_pub -f rules.yaml`): a body
        // that is no JSON object is the rules.
        func rulesFile() -> Result<Request, RequestError> {
            guard let text = String(validating: payload, as: UTF8.self) else {
                return .failure(RequestError(name: name, reply: reply, message: "the rules are not UTF-8 text"))
            }
            return .success(Request(rawName: name, name: known, reply: reply, body: [RulesOverMQTT.rulesMember: .string(text)]))
        }
        let fields: [JSONMember]
        do throws(JSONReader.Failure) {
            guard case let .object(members) = try JSONReader.value(payload) else {
                if known == .rulesSet { return rulesFile() }
                return .failure(RequestError(name: name, reply: reply, message: "the request body is not a JSON object"))
            }
            fields = members
        } catch {
            if known == .rulesSet { return rulesFile() }
            return .failure(RequestError(name: name, reply: reply, message: "the request body is not a JSON object (\(error))"))
        }
        let object = Dictionary(fields.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        let id = object["id"]
        switch id {
        case nil, .int?: break
        case let .string(text)? where text.count <= maximumIDLength: break
        default:
            // Not echoed: an answer never carries more than the limits allow.
            return .failure(RequestError(name: name, reply: reply,
                                         message: "id must be a string of at most \(maximumIDLength) characters or an integer"))
        }
        var reply = reply
        reply.id = id
        guard let known else { return .failure(RequestError(name: name, reply: reply, message: unknownMessage(name))) }
        return .success(Request(rawName: name, name: known, reply: reply, body: object))
    }

    static func unknownMessage(_ name: String) -> String {
        "unknown request \"\(name)\" (known: \(Name.allCases.map(\.rawValue).joined(separator: ", ")))"
    }
}

struct RequestError: Error, Sendable {
    let name: String
    /// Where the error goes, with the request's `id` once it was read.
    let reply: Reply
    let message: String
}
