#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Synchronization

/// A real `mosquitto_sub` in the background: the independent witness of what reached the broker.
///
/// It prints one line a message, `-F '%r %t %p'` (retained flag 0/1, topic, payload), to a file that
/// `waitForMessage` polls with a deadline. `start` returns only after the broker has logged the
/// SUBACK for this subscriber, so a publish right after `start` cannot race the subscription.
/// Topics with spaces and payloads with newlines are not supported by this line format.
public final class MQTTTestSubscriber: Sendable {
    /// One line of `mosquitto_sub` output.
    public struct Message: Sendable, Equatable, CustomStringConvertible {
        public var topic: String
        public var payload: String
        /// True when the broker delivered it from its retained store.
        public var retained: Bool
        /// Its MQTT 5 properties as `mosquitto_sub -V 5` printed them, for a subscriber started
        /// with `mqtt5Properties`; nil otherwise.
        public var properties: Properties?

        /// What `mosquitto_sub` prints of a message's MQTT 5 properties: each empty when absent.
        public struct Properties: Sendable, Equatable {
            public var contentType: String
            /// Message Expiry Interval as the broker forwarded it (what is left of it).
            public var messageExpiry: String
            public var correlationData: String
            /// `name:value`, as mosquitto_sub prints them.
            public var userProperties: String
        }

        public init(topic: String, payload: String, retained: Bool, properties: Properties? = nil) {
            self.topic = topic
            self.payload = payload
            self.retained = retained
            self.properties = properties
        }

        public var description: String { "\(retained ? "[retained] " : "")\(topic) \(payload)" }
    }

    public let clientID: String
    /// What every message received under the API's trees is held to.
    private let contract: MQTTContract?
    private let process: ChildProcess
    private let outputPath: String
    /// Whether lines carry the MQTT 5 properties, tab-separated before the payload.
    private let withProperties: Bool
    /// The messages read so far and how many bytes of the output they took: each look at
    /// `messages` reads and parses only what `mosquitto_sub` wrote since the last (tests poll it
    /// every 20 ms while the output grows to thousands of lines).
    private let received = Mutex(Received())

    private struct Received {
        var offset: Int64 = 0
        var messages: [Message] = []
        var violations: [String] = []
    }

    private static let counter = Mutex(0)

    private init(clientID: String, contract: MQTTContract?, process: ChildProcess, outputPath: String, withProperties: Bool) {
        self.clientID = clientID
        self.contract = contract
        self.process = process
        self.outputPath = outputPath
        self.withProperties = withProperties
    }

    deinit {
        process.terminate()
    }

    /// Subscribes to `topics` on the broker's plain port at `qos`. `extraArguments` go to
    /// mosquitto_sub as they are (e.g. `--will-topic`). What arrives under `uwb2mqtt/` is held to
    /// the API's AsyncAPI document (`MQTTContract`) unless `checksContract` is false: for a test
    /// that itself publishes what is not the agent's on the agent's topics. `mqtt5Properties`:
    /// subscribe with MQTT 5 and keep each message's properties (`Message.properties`).
    public static func start(broker: MosquittoBroker, topics: [String], qos: Int = 1,
                             clientID: String? = nil, extraArguments: [String] = [], checksContract: Bool = true,
                             mqtt5Properties: Bool = false,
                             timeout: Duration = .seconds(10)) async throws(TestSupportError) -> MQTTTestSubscriber {
        let number = counter.withLock { value in
            value += 1
            return value
        }
        let id = clientID ?? "test-sub-\(getpid())-\(number)"
        let contract = checksContract ? try await MQTTContract.forSubscription(to: topics) : nil
        let outputPath = broker.directory.file("\(id).out")
        var arguments = ["-h", "127.0.0.1", "-p", String(broker.port), "-i", id, "-q", String(qos),
                         "-F", mqtt5Properties ? "%r %t \\t%C\\t%E\\t%D\\t%P\\t%p" : "%r %t %p"]
        if mqtt5Properties { arguments += ["-V", "5"] }
        for topic in topics { arguments += ["-t", topic] }
        arguments += extraArguments
        let process = try ChildProcess(executable: "/usr/bin/mosquitto_sub", arguments: arguments,
                                       stdoutPath: outputPath, stderrPath: broker.directory.file("\(id).err"))
        let subscriber = MQTTTestSubscriber(clientID: id, contract: contract, process: process, outputPath: outputPath,
                                            withProperties: mqtt5Properties)
        try await broker.waitForLog(containing: "Sending SUBACK to \(id)", timeout: timeout)
        return subscriber
    }

    /// Every message received so far, in order: the output's complete lines (a line being
    /// written waits for its newline).
    public var messages: [Message] {
        received.withLock { state in
            let new = readBytes(outputPath, from: state.offset)
            guard let end = new.lastIndex(of: UInt8(ascii: "\n")) else { return state.messages }
            state.offset += Int64(end + 1)
            for line in new[...end].split(separator: UInt8(ascii: "\n")) {
                let parts = String(decoding: line, as: UTF8.self).split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count >= 2 else { continue }
                var payload = parts.count == 3 ? String(parts[2]) : ""
                var properties: Message.Properties?
                if withProperties {
                    let fields = payload.split(separator: "\t", maxSplits: 5, omittingEmptySubsequences: false).map(String.init)
                    guard fields.count == 6 else { continue }
                    properties = Message.Properties(contentType: fields[1], messageExpiry: fields[2], correlationData: fields[3],
                                                    userProperties: fields[4])
                    payload = fields[5]
                }
                state.messages.append(Message(topic: String(parts[1]), payload: payload, retained: parts[0] == "1",
                                              properties: properties))
                if let problem = contract?.violation(of: state.messages[state.messages.count - 1]) { state.violations.append(problem) }
            }
            return state.messages
        }
    }

    /// Waits until a message on `topic` that satisfies `predicate` has arrived and returns it.
    /// Each message is judged once (`predicate` is taken to depend on the message alone).
    @discardableResult
    public func waitForMessage(topic: String, where predicate: (Message) -> Bool = { _ in true },
                               timeout: Duration = .seconds(10)) async throws(TestSupportError) -> Message {
        var judged = 0
        return try await waitFor("a message on \(topic)", timeout: timeout) {
            let all = messages
            defer { judged = all.count }
            return all[judged...].first { $0.topic == topic && predicate($0) }
        }
    }

    /// Waits until at least `count` messages on `topic` have arrived and returns them.
    public func waitForMessages(topic: String, count: Int,
                                timeout: Duration = .seconds(10)) async throws(TestSupportError) -> [Message] {
        try await waitFor("\(count) messages on \(topic)", timeout: timeout) {
            let matching = messages.filter { $0.topic == topic }
            return matching.count >= count ? matching : nil
        }
    }

    /// Kills the subscriber by PID (`SIGKILL` makes the broker see a lost connection and publish its will).
    public func kill(_ signal: Int32) {
        process.kill(signal)
    }

    public func stop() {
        process.terminate()
    }

    /// The messages received so far that broke the API's document, each with what is wrong; every
    /// wait throws the first of them.
    public var contractViolations: [String] {
        _ = messages
        return received.withLock { $0.violations }
    }

    private func waitFor<T>(_ what: String, timeout: Duration, _ check: () -> T?) async throws(TestSupportError) -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            let found = check()
            if let problem = contractViolations.first { throw .contractViolation(problem) }
            if let found { return found }
            if ContinuousClock.now >= deadline {
                throw .timedOut(waitingFor: what, after: timeout,
                                detail: "received: \(messages.map(\.description))")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
