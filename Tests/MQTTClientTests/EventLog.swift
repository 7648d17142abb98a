import EventLoop
import MQTTClient
import Synchronization

/// Records every event of one client so a test can wait for a condition with a deadline.
///
/// The client's `onEvent` (on its loop's thread) appends here. Waiting polls the recorded list
/// every 10 ms until the predicate holds or the deadline passes — it waits for the condition,
/// never a fixed time.
final class EventLog: Sendable {
    struct Timeout: Error, CustomStringConvertible {
        let description: String
    }

    /// A class around the Mutex so the recording task can share it (a Mutex cannot be captured).
    private final class Storage: Sendable {
        let events = Mutex<[MQTTEvent]>([])
    }

    private let storage = Storage()

    init() {}

    func record(_ event: MQTTEvent) {
        storage.events.withLock { $0.append(event) }
    }

    var all: [MQTTEvent] { storage.events.withLock { $0 } }

    /// Waits for the first event at index ≥ `after` that `extract` accepts (returns non-nil for),
    /// and returns its index and the extracted value.
    @discardableResult
    func waitFor<T>(_ what: String, after: Int = 0, timeout: Duration = .seconds(15),
                    _ extract: (MQTTEvent) -> T?) async throws -> (index: Int, value: T) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let events = all
            if after < events.count {
                for index in after..<events.count {
                    if let value = extract(events[index]) { return (index, value) }
                }
            }
            if ContinuousClock.now >= deadline {
                throw Timeout(description: "timed out after \(timeout) waiting for \(what); events: \(events)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Waits for an event equal to `expected`.
    @discardableResult
    func waitFor(_ expected: MQTTEvent, after: Int = 0, timeout: Duration = .seconds(15)) async throws -> Int {
        try await waitFor("\(expected)", after: after, timeout: timeout) { $0 == expected ? () : nil }.index
    }

    @discardableResult
    func waitForConnected(after: Int = 0, timeout: Duration = .seconds(15)) async throws -> Int {
        try await waitFor("connected", after: after, timeout: timeout) { event -> Bool? in
            if case .connected(let sessionPresent) = event { return sessionPresent } else { return nil }
        }.index
    }

    func waitForDisconnected(after: Int = 0, timeout: Duration = .seconds(15)) async throws -> (index: Int, value: MQTTDisconnectReason) {
        try await waitFor("disconnected", after: after, timeout: timeout) { event in
            if case .disconnected(let reason) = event { return reason } else { return nil }
        }
    }

    @discardableResult
    func waitForMessage(topic: String, after: Int = 0, timeout: Duration = .seconds(15)) async throws -> MQTTMessage {
        try await waitFor("a message on \(topic)", after: after, timeout: timeout) { event in
            if case .message(let message) = event, message.topic == topic { return message } else { return nil }
        }.value
    }
}

/// A client for `url`, configured by `adjust`, on a loop thread of its own, with its event log.
func makeClient(_ url: String, _ adjust: (inout MQTTConfiguration) -> Void = { _ in }) throws -> (TestClient, EventLog) {
    var configuration = try MQTTConfiguration(url: url, clientID: "uwb2mqtt-test-\(UInt32.random(in: 0...UInt32.max))")
    adjust(&configuration)
    let log = EventLog()
    return (try TestClient(configuration: configuration, log: log), log)
}

/// An `MQTTClient` on an `EventLoopThread`, with the client's methods: each call runs on the
/// loop's thread and returns its result, so a test reads like a program using the client.
final class TestClient: Sendable {
    let configuration: MQTTConfiguration
    private let thread: EventLoopThread
    private let box: Box

    private final class Box: @unchecked Sendable {
        // Touched only on the loop's thread (inside `thread.sync`).
        var client: MQTTClient?
    }

    init(configuration: MQTTConfiguration, log: EventLog) throws {
        self.configuration = configuration
        thread = try EventLoopThread(name: "test mqtt loop")
        box = Box()
        let box = self.box
        try thread.sync { loop in
            box.client = try MQTTClient(configuration: configuration, loop: loop) { log.record($0) }
        }
    }

    deinit {
        let box = self.box
        thread.run { _ in box.client = nil }
        thread.stop()
    }

    /// Runs `body` with the client on the loop's thread, passing its typed error through.
    private func call<T>(_ body: @escaping (MQTTClient) throws(MQTTError) -> T) throws(MQTTError) -> T {
        let box = self.box
        do {
            return try thread.sync { _ in try body(box.client!) }
        } catch let error as MQTTError {
            throw error
        } catch {
            fatalError("unexpected error \(error)")
        }
    }

    func start() throws(MQTTError) { try call { client throws(MQTTError) in try client.start() } }

    @discardableResult
    func publish(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false) throws(MQTTError) -> Int {
        try call { client throws(MQTTError) in try client.publish(topic: topic, payload: payload, qos: qos, retain: retain) }
    }

    @discardableResult
    func publish(topic: String, payload: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false) throws(MQTTError) -> Int {
        try publish(topic: topic, payload: Array(payload.utf8), qos: qos, retain: retain)
    }

    /// Several publishes in one call on the loop: they leave in one flush, as one notification's do.
    func publishTogether(_ body: @escaping (MQTTClient) throws(MQTTError) -> [Int]) throws(MQTTError) -> [Int] {
        try call(body)
    }

    func subscribe(topic: String, qos: MQTTQoS = .atLeastOnce) throws(MQTTError) {
        try call { client throws(MQTTError) in try client.subscribe(topic: topic, qos: qos) }
    }

    func unsubscribe(topic: String) throws(MQTTError) {
        try call { client throws(MQTTError) in try client.unsubscribe(topic: topic) }
    }

    func abortConnection() { try? call { client in client.abortConnection() } }

    var isConnected: Bool { (try? call { client in client.isConnected }) ?? false }

    var outstandingMessageCount: Int { (try? call { client in client.outstandingMessageCount }) ?? 0 }

    /// Runs the loop until the broker acknowledged what is outstanding: awaited, not blocking a
    /// thread of Swift concurrency meanwhile.
    @discardableResult
    func disconnect(timeout: Duration = .seconds(5)) async -> Int {
        let box = self.box
        return await thread.perform { _ in box.client?.disconnect(timeout: timeout) ?? 0 }
    }
}
