import Foundation
@testable import Commands
import Fuse
@testable import Gateway
import Testing
import TestSupport
import Vocabulary

/// `uwb2mqtt schema api`: an AsyncAPI 3.0 document with every channel of the agent's and the
/// fuse's topic tables and every request, whose schemas take the payloads the agent publishes and
/// refuse one with a member they do not declare.
@Suite struct AsyncAPIDocumentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The document as the command prints it.
    static func document() throws -> JSONValue {
        let output = Lines()
        let errors = Lines()
        let status = SchemaCommand.main(["api"], console: Console(output: output.append, errors: errors.append))
        #expect(status == ExitStatus.success && errors.all.isEmpty)
        return try JSONReader.value(Array(output.text.utf8))
    }

    /// Every object of `value` with its path, depth first.
    static func objects(_ value: JSONValue, at path: String = "#") -> [(String, [JSONMember])] {
        switch value {
        case let .object(members): [(path, members)] + members.flatMap { objects($0.value, at: path + "/" + $0.key) }
        case let .list(items): items.enumerated().flatMap { objects($1, at: "\(path)/\($0)") }
        default: []
        }
    }

    static func channelID(_ reference: JSONValue?) -> String? {
        guard case let .string(path)? = reference?["$ref"] else { return nil }
        return path.split(separator: "/").last.map(String.init)
    }

    @Test func theDocumentIsAsyncAPI3AndEveryReferenceResolves() throws {
        let document = try Self.document()
        #expect(document["asyncapi"] == "3.0.0")
        #expect(document["info"]?["title"] != nil && document["info"]?["version"] == "1")
        let validator = JSONSchemaValidator(root: document)
        for (path, members) in Self.objects(document) {
            for member in members where member.key == "$ref" {
                guard case let .string(reference) = member.value else { Issue.record("\(path): $ref \(member.value.json)"); continue }
                #expect(validator.resolve(reference) != nil, "\(path): \(reference)")
            }
        }
        guard case let .object(channels)? = document["channels"], case let .object(operations)? = document["operations"],
              case let .object(schemas)? = document["components"]?["schemas"] else {
            Issue.record("no channels, operations or schemas")
            return
        }
        for channel in channels {
            guard case let .string(address)? = channel.value["address"] else { Issue.record("\(channel.key): no address"); continue }
            #expect(address.hasPrefix("{base}/"), "\(channel.key)")
            // Every parameter of the address is described, and nothing else.
            let names = address.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
            guard case let .object(parameters)? = channel.value["parameters"] else { Issue.record("\(channel.key): no parameters"); continue }
            #expect(parameters.map(\.key) == names, "\(channel.key)")
            #expect(channel.value["messages"]?[channel.key] != nil, "\(channel.key)")
        }
        for operation in operations {
            #expect(operation.value["action"] == "send" || operation.value["action"] == "receive", "\(operation.key)")
            let mqtt = operation.value["bindings"]?["mqtt"]
            #expect([0, 1, 2].map { JSONValue.int($0) }.contains(mqtt?["qos"] ?? .null), "\(operation.key)")
            #expect(mqtt?["retain"] == true || mqtt?["retain"] == false, "\(operation.key)")
            #expect(mqtt?["bindingVersion"] == "0.2.0", "\(operation.key)")
        }
        // Every schema keyword is one the tests' validator checks or an annotation: no payload
        // passes because a check was skipped.
        let known = JSONSchemaValidator.supported.union(JSONSchemaValidator.annotations)
        for schema in schemas {
            for (path, members) in Self.objects(schema.value, at: "#/components/schemas/\(schema.key)")
            where !path.hasSuffix("/properties") && !path.hasSuffix("/parameters") {
                for member in members where !known.contains(member.key) { Issue.record("\(path): keyword \(member.key)") }
            }
        }
    }

    @Test func everyChannelOfTheTopicTablesAndEveryRequestIsInTheDocument() throws {
        let document = try Self.document()
        for declared in ChannelDeclaration.agentChannels + ChannelDeclaration.fuseChannels {
            #expect(document["channels"]?[declared.id]?["address"] == .string(declared.address), "\(declared.id)")
        }
        // The site tree is the fuse's.
        for id in ["siteStatus", "sitePosition", "siteState", "siteEvent"] {
            guard case let .string(address)? = document["channels"]?[id]?["address"] else { Issue.record("no \(id)"); continue }
            #expect(address.hasPrefix("{base}/site/{site}/"))
        }
        // Each request on request/<name>, answered on response/<name>.
        guard case let .object(operations)? = document["operations"] else {
            Issue.record("no operations")
            return
        }
        for name in Request.Name.allCases.map(\.rawValue) {
            let operation = operations.first { Self.channelID($0.value["channel"]).flatMap { document["channels"]?[$0]?["address"] }
                == .string("{base}/{gw}/request/\(name)") }
            #expect(operation?.value["action"] == "receive", "\(name)")
            let reply = Self.channelID(operation?.value["reply"]?["channel"])
            #expect(reply.flatMap { document["channels"]?[$0]?["address"] } == .string("{base}/{gw}/response/\(name)"), "\(name)")
        }
        // The fuse reads every gateway's status and ranges.
        for id in ["status", "peerRange"] {
            #expect(operations.contains { $0.value["x-uwb2mqtt-service"] == "fuse" && $0.value["action"] == "receive"
                && Self.channelID($0.value["channel"]) == id }, "\(id)")
        }
    }

    /// What the agent publishes passes; a member more, or one less, does not.
    @Test func aPayloadWithAnUndeclaredKeyFailsValidation() throws {
        let contract = try MQTTContract(document: try Self.document())
        let topics = TopicTree(base: MQTTContract.base, gatewayID: "Lobby")
        let status = JSONBytes.object(Payloads.status(online: true, ts: 1_795_977_000.123, position: nil, headingDegrees: 90,
                                                      rangingInterval: TimeSpan(seconds: 0.2)))
        let text = String(decoding: status, as: UTF8.self)
        #expect(contract.violation(topic: topics.status, payload: text, retained: true) == nil)
        #expect(contract.violation(topic: topics.status, payload: String(decoding: Payloads.lastWill, as: UTF8.self), retained: true) == nil)

        let extra = String(text.dropLast()) + #", "battery": 0.9}"#
        #expect(contract.violation(topic: topics.status, payload: extra, retained: false)?.contains("undeclared key battery") == true)
        let noTime = text.replacingOccurrences(of: #""ts": "2026-11-29T18:30:00.123Z", "#, with: "")
        #expect(contract.violation(topic: topics.status, payload: noTime, retained: false)?.contains("missing ts") == true)

        // A member of a rule kind's, in `state`.
        let state = #"{"ts": "2026-11-29T18:30:00.123Z", "peer": "Phone Anna", "link": "ranging", "distance_m": 0.9, "direction": "unavailable", "direction_source": null, "azimuth_deg": null, "elevation_deg": null, "zones": [], "stage": null, "approaches": {"handoff": {"phase": "idle", "progress": 0.0}}, "facing": null}"#
        let stateTopic = topics.peer("Phone Anna", .peerState)
        #expect(contract.violation(topic: stateTopic, payload: state, retained: true) == nil)
        #expect(contract.violation(topic: stateTopic, payload: state.replacingOccurrences(of: #""progress": 0.0"#, with: #""progress": 0.0, "eta_s": 3"#),
                                   retained: true)?.contains("undeclared key eta_s") == true)

        // An empty payload clears a retained topic, and is nothing on any other.
        #expect(contract.violation(topic: stateTopic, payload: "", retained: true) == nil)
        #expect(contract.violation(topic: topics.peer("Phone Anna", .peerRange), payload: "", retained: false) != nil)
        // A topic the document does not have; a request, which is the requester's to write.
        #expect(contract.violation(topic: topics.root + "/battery", payload: "{}", retained: false) != nil)
        #expect(contract.violation(topic: topics.root + "/request/ping", payload: "not json", retained: false) == nil)
        #expect(contract.violation(topic: "homeassistant/sensor/x/config", payload: "{}", retained: true) == nil)
    }

    /// The examples in docs/mqtt-api.md and docs/phones.md are payloads the document takes
    /// (a `…` where the example leaves a time or a value out).
    @Test func theDocsExamplesValidate() throws {
        let contract = try MQTTContract(document: try Self.document())
        let time = "\"2026-11-29T18:30:00.123Z\""
        let api = try String(contentsOf: Self.root.appendingPathComponent("docs/mqtt-api.md"), encoding: .utf8)
        var checked = 0
        for line in api.split(separator: "\n") {
            let text = line.hasPrefix("# ") ? line.dropFirst(2) : line[...]
            guard text.hasPrefix(MQTTContract.base + "/"), let space = text.firstIndex(of: " "), text[space...].contains("{") else { continue }
            let payload = text[text.index(after: space)...].replacingOccurrences(of: "\"…\"", with: time)
            #expect(contract.violation(topic: String(text[..<space]), payload: payload, retained: false) == nil)
            checked += 1
        }
        #expect(checked >= 9)
        // The phone requests' answers, by the request they answer.
        let phones = try String(contentsOf: Self.root.appendingPathComponent("docs/phones.md"), encoding: .utf8)
        let blocks = phones.components(separatedBy: "```json\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let answers = blocks.map { $0.replacingOccurrences(of: "\"…\"", with: time).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ") }.filter { $0.hasPrefix(#"{"id""#) }
        #expect(answers.count == 3)
        for answer in answers {
            let valid = ["phone_session", "phone_session_start"].contains {
                contract.violation(topic: "uwb2mqtt/lobby/response/\($0)", payload: answer, retained: false) == nil
            }
            #expect(valid, "\(answer)")
        }
    }
}
