import Synchronization
import Vocabulary

/// The MQTT API as `uwb2mqtt schema api` prints it, held against every message the test
/// subscribers receive: a message under the agent's or the fuse's tree must be on a channel of
/// the document that the agent or the fuse publishes on, and its payload must validate against
/// that channel's schema (an empty payload only on a retained channel: a clear). So the document
/// cannot drift from what is published: a payload that gains an undeclared key fails the test
/// that received it.
///
/// Only topics under ``base`` (the base topic every fixture configures) are held to it, as
/// `{base}` of the document's addresses; channels that others publish on (requests, phones'
/// reports), where tests send malformed messages on purpose, are not checked. Home Assistant's
/// discovery topics (`homeassistant/…`) are outside the document: their payloads are Home
/// Assistant's schema.
public struct MQTTContract: Sendable {
    /// The base topic of the trees checked.
    public static let base = "uwb2mqtt"

    struct Channel: Sendable {
        let id: String
        /// The address's levels after `{base}`: a literal, or nil for a parameter.
        let levels: [String?]
        let retained: Bool
        let schema: JSONValue
    }

    /// The channels the agent or the fuse publishes on.
    let published: [Channel]
    /// The addresses of the others' channels, which are not checked.
    let others: [[String?]]
    let validator: JSONSchemaValidator

    /// Reads the document `uwb2mqtt schema api` printed.
    public init(document: JSONValue) throws(TestSupportError) {
        validator = JSONSchemaValidator(root: document)
        guard case let .object(channels)? = document["channels"], case let .object(operations)? = document["operations"] else {
            throw .contractViolation("the AsyncAPI document has no channels or operations")
        }
        func channelID(_ reference: JSONValue?) -> String? {
            guard case let .string(path)? = reference?["$ref"], path.hasPrefix("#/channels/") else { return nil }
            return String(path.dropFirst("#/channels/".count))
        }
        var sent: [String: Bool] = [:]  // channel id: retained
        for operation in operations.map(\.value) {
            let retained = operation["bindings"]?["mqtt"]?["retain"] == .bool(true)
            if operation["action"] == .string("send"), let id = channelID(operation["channel"]) { sent[id] = retained }
            if let id = channelID(operation["reply"]?["channel"]) { sent[id] = false }
        }
        var published: [Channel] = [], others: [[String?]] = []
        for channel in channels {
            guard case let .string(address)? = channel.value["address"] else { continue }
            let levels = address.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
                .map { $0.hasPrefix("{") ? nil : String($0) }
            guard let retained = sent[channel.key] else {
                others.append(levels)
                continue
            }
            guard case let .string(reference)? = document["components"]?["messages"]?[channel.key]?["payload"]?["$ref"],
                  let schema = validator.resolve(reference) else {
                throw .contractViolation("channel \(channel.key) has no payload schema")
            }
            published.append(Channel(id: channel.key, levels: levels, retained: retained, schema: schema))
        }
        self.published = published
        self.others = others
    }

    /// What is wrong with a message as a subscriber received it, or nil when nothing is (or the
    /// topic is not the document's to judge).
    public func violation(topic: String, payload: String, retained: Bool) -> String? {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard levels.count > 1, levels[0] == Self.base else { return nil }
        let tail = Array(levels.dropFirst())
        func matches(_ address: [String?]) -> Bool {
            address.count == tail.count && zip(address, tail).allSatisfy { $0 == nil || $0 == $1 }
        }
        func literals(_ address: [String?]) -> Int { address.count { $0 != nil } }
        let candidates = published.filter { matches($0.levels) }
        guard let channel = candidates.max(by: { literals($0.levels) < literals($1.levels) }) else {
            return others.contains(where: matches) ? nil : "\(topic): no channel of the AsyncAPI document has this topic"
        }
        if others.contains(where: { matches($0) && literals($0) > literals(channel.levels) }) { return nil }
        if retained && !channel.retained { return "\(topic): delivered retained, but channel \(channel.id) is not retained" }
        if payload.isEmpty {
            return channel.retained ? nil : "\(topic): an empty payload on channel \(channel.id), which is not retained"
        }
        // A flood repeats one payload thousands of times: judged once.
        let memo = channel.id + "\u{0}" + payload
        if Self.valid.withLock({ $0.contains(memo) }) { return nil }
        let value: JSONValue
        do throws(JSONReader.Failure) {
            value = try JSONReader.value(Array(payload.utf8))
        } catch {
            return "\(topic): the payload is not JSON (\(error)): \(payload)"
        }
        let problems = validator.problems(value, against: channel.schema)
        guard problems.isEmpty else {
            return "\(topic): the payload does not validate against channel \(channel.id): " + problems.joined(separator: "; ") + " — payload: \(payload)"
        }
        Self.valid.withLock { valid in
            if valid.count >= 10_000 { valid.removeAll(keepingCapacity: true) }
            valid.insert(memo)
        }
        return nil
    }

    /// Payloads found valid, by channel, in this process.
    private static let valid = Mutex<Set<String>>([])

    // MARK: the document, once per test process

    /// The one reading of the document, which every subscriber of the process awaits.
    private static let loading = Mutex<Task<MQTTContract, any Error>?>(nil)

    /// The contract of the built `uwb2mqtt`, for a subscriber to `topics`: nil when none of them
    /// can match a topic under ``base``. Read once per process, however many tests start at once.
    static func forSubscription(to topics: [String]) async throws(TestSupportError) -> MQTTContract? {
        guard topics.contains(where: { $0 == "#" || $0.hasPrefix(base + "/") }) else { return nil }
        let task = loading.withLock { task in
            if let task { return task }
            let started = Task { () async throws -> MQTTContract in try await load() }
            task = started
            return started
        }
        do {
            return try await task.value
        } catch let error as TestSupportError {
            throw error
        } catch {
            throw .contractViolation("cannot read the document: \(error)")
        }
    }

    private static func load() async throws(TestSupportError) -> MQTTContract {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-asyncapi")
        let child = try ChildProcess(executable: AgentProcess.executable, arguments: ["schema", "api"],
                                     stdoutPath: directory.file("api.json"), stderrPath: directory.file("api.err"))
        let status = await child.waitForExit(timeout: .seconds(30)) ?? child.terminate(grace: .seconds(1))
        guard status == .exited(0) else {
            throw .commandFailed(command: "uwb2mqtt schema api", status: status.description, output: readText(directory.file("api.err")))
        }
        let document: JSONValue
        do throws(JSONReader.Failure) {
            document = try JSONReader.value(Array(readText(directory.file("api.json")).utf8))
        } catch {
            throw .contractViolation("uwb2mqtt schema api printed no JSON: \(error)")
        }
        return try MQTTContract(document: document)
    }
}

extension MQTTContract {
    func violation(of message: MQTTTestSubscriber.Message) -> String? {
        violation(topic: message.topic, payload: message.payload, retained: message.retained)
    }
}
