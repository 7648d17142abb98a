import Fuse
import Gateway
import Service
import Vocabulary

/// The MQTT API as an AsyncAPI 3.0 document (`uwb2mqtt schema api`): every channel of the agent's
/// tree and of the fuse's site tree, with its parameters, whether it is retained and at which QoS,
/// who publishes there, the requests with their answers, and a JSON Schema of every payload.
///
/// Nothing in it is written here: the channels are the topic tables the agent and the fuse
/// publish by (`ChannelDeclaration.agentChannels`, `.fuseChannels`), each payload's schema the
/// declaration its builder writes from (`PayloadFields`, or the schema beside a writer of every
/// measurement), each request's body and answer what `Request.Name` declares. The end-to-end
/// tests validate every message they receive against this document, so that it cannot drift
/// from what is published.
public enum AsyncAPIDocument {
    /// The MQTT binding's version the operations and messages follow.
    static let bindingVersion = "0.2.0"

    public static var json: String { IndentedJSON.text(value) }

    public static var value: JSONValue {
        let agent = ChannelDeclaration.agentChannels
        let fuse = ChannelDeclaration.fuseChannels
        let all = agent + fuse
        let answers = Set(all.compactMap(\.answer))
        var operations: [JSONMember] = []
        for channel in all {
            switch channel.publisher {
            case .service:
                // An answer is the reply of its request's operation, not an operation of its own.
                guard !answers.contains(channel.id) else { continue }
                operations.append(JSONMember("send" + capitalized(channel.id), operation(.send, channel, in: all)))
            case .clients:
                operations.append(JSONMember("receive" + capitalized(channel.id), operation(.receive, channel, in: all)))
            }
        }
        for id in ChannelDeclaration.fuseReads {
            guard let channel = agent.first(where: { $0.id == id }) else { continue }
            operations.append(JSONMember("fuseReceives" + capitalized(id), operation(.receive, channel, in: all, service: "fuse")))
        }
        return .object([
            JSONMember("asyncapi", "3.0.0"),
            JSONMember("info", .object([
                JSONMember("title", "uwb2mqtt MQTT API"),
                JSONMember("version", "1"),
                JSONMember("description", .string(description)),
                JSONMember("x-uwb2mqtt-version", .string(AgentVersion.agent)),
            ])),
            JSONMember("defaultContentType", "application/json"),
            JSONMember("channels", .object(all.map { JSONMember($0.id, channel($0)) })),
            JSONMember("operations", .object(operations)),
            JSONMember("components", .object([
                JSONMember("messages", .object(all.map { JSONMember($0.id, message($0, correlated: $0.answer != nil || answers.contains($0.id))) })),
                JSONMember("schemas", .object(all.map { JSONMember($0.id, $0.payload.value) })),
            ])),
        ])
    }

    static let description = """
        The MQTT topics of the uwb2mqtt agent (<base>/<gw>/…) and of `uwb2mqtt fuse` (<base>/site/<site>/…). \
        Every payload is a UTF-8 JSON object; an empty retained message clears a retained topic (a peer removed \
        by a reload, a peer the fuse forgot). A request's body may be empty or a JSON object; its answer echoes \
        its id. Times are RFC 3339 UTC with milliseconds, distances metres, angles degrees; an unknown value is \
        null, never made up. Topic segments that come from names are lower-cased, every character outside \
        [a-z0-9_-] becoming _. Live data (x-uwb2mqtt-live) is kept only as the newest per topic while the \
        broker is away; events and retained state are journaled and delivered in order. \
        Printed by `uwb2mqtt schema api` from the declarations the agent and the fuse publish with.
        """

    private enum Action: String { case send, receive }

    private static func capitalized(_ id: String) -> String { id.prefix(1).uppercased() + id.dropFirst() }

    private static func channel(_ c: ChannelDeclaration) -> JSONValue {
        var members = [JSONMember("address", .string(c.address)), JSONMember("summary", .string(c.summary))]
        members.append(JSONMember("parameters", .object(c.parameters.map { parameter in
            var fields = [JSONMember("description", .string(parameter.description))]
            if !parameter.examples.isEmpty { fields.append(JSONMember("examples", .list(parameter.examples.map(JSONValue.string)))) }
            return JSONMember(parameter.name, .object(fields))
        })))
        members.append(JSONMember("messages", .object([JSONMember(c.id, reference("#/components/messages/\(c.id)"))])))
        members.append(JSONMember("x-uwb2mqtt-service", .string(c.service)))
        return .object(members)
    }

    /// `correlated`: a request or an answer, which echoes the request's `id`.
    private static func message(_ c: ChannelDeclaration, correlated: Bool) -> JSONValue {
        var members = [JSONMember("name", .string(c.id)), JSONMember("summary", .string(c.summary)),
                       JSONMember("contentType", "application/json"),
                       JSONMember("payload", reference("#/components/schemas/\(c.id)"))]
        if correlated {
            members.append(JSONMember("correlationId", .object([
                JSONMember("description", "the request's id, echoed in its answer"), JSONMember("location", "$message.payload#/id"),
            ])))
        }
        // MQTT 5 (docs/mqtt-api.md, "MQTT 5"): what every message carries beside its payload.
        members.append(JSONMember("headers", .object([
            JSONMember("type", "object"),
            JSONMember("description", "MQTT 5 user properties (none on MQTT 3.1.1)"),
            JSONMember("properties", .object([JSONMember(ContractProperties.schemaVersion.name, .object([
                JSONMember("const", .string(ContractProperties.schemaVersion.value)),
                JSONMember("description", "the version of these payload schemas"),
            ]))])),
        ])))
        var mqtt = [JSONMember("contentType", .string(ContractProperties.contentType))]
        if correlated {
            mqtt.append(JSONMember("correlationData", .object([
                JSONMember("type", "string"),
                JSONMember("description", "MQTT 5: the request's Correlation Data, echoed by its answer"),
            ])))
        }
        if c.answer != nil {
            mqtt.append(JSONMember("responseTopic", .object([
                JSONMember("type", "string"),
                JSONMember("description", .string("MQTT 5: where the answer is to go instead of response/<name>: under <base>/<gw>/response/ "
                           + "or a prefix of mqtt.response_topic_prefixes; any other is refused on response/<name>")),
            ])))
        }
        mqtt.append(JSONMember("bindingVersion", .string(bindingVersion)))
        members.append(JSONMember("bindings", .object([JSONMember("mqtt", .object(mqtt))])))
        return .object(members)
    }

    private static func operation(_ action: Action, _ c: ChannelDeclaration, in all: [ChannelDeclaration], service: String? = nil) -> JSONValue {
        var members = [JSONMember("action", .string(action.rawValue)), JSONMember("channel", reference("#/channels/\(c.id)")),
                       JSONMember("summary", .string(c.summary)),
                       JSONMember("messages", .list([reference("#/channels/\(c.id)/messages/\(c.id)")])),
                       JSONMember("bindings", .object([JSONMember("mqtt", binding(c))]))]
        if let answer = c.answer, let reply = all.first(where: { $0.id == answer }) {
            members.append(JSONMember("reply", .object([
                JSONMember("channel", reference("#/channels/\(reply.id)")),
                JSONMember("messages", .list([reference("#/channels/\(reply.id)/messages/\(reply.id)")])),
            ])))
        }
        if c.live { members.append(JSONMember("x-uwb2mqtt-live", true)) }
        if let setting = c.qosSetting { members.append(JSONMember("x-uwb2mqtt-qos-setting", .string(setting))) }
        members.append(JSONMember("x-uwb2mqtt-service", .string(service ?? c.service)))
        return .object(members)
    }

    private static func binding(_ c: ChannelDeclaration) -> JSONValue {
        var members = [JSONMember("qos", .int(Int64(c.qos))), JSONMember("retain", .bool(c.retained))]
        // MQTT 5: live data expires (mqtt.message_expiry); events and retained state never do.
        if c.live && c.publisher == .service {
            members.append(JSONMember("messageExpiryInterval", .object([
                JSONMember("type", "integer"), JSONMember("minimum", 0), JSONMember("maximum", 86_400),
                JSONMember("default", .int(Int64(BrokerSettings().messageExpiry.seconds))),
                JSONMember("description", "seconds: mqtt.message_expiry (MQTT 5)"),
            ])))
        }
        members.append(JSONMember("bindingVersion", .string(bindingVersion)))
        return .object(members)
    }

    private static func reference(_ path: String) -> JSONValue { .object([JSONMember("$ref", .string(path))]) }
}
