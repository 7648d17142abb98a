import MQTTClient
import Synchronization

/// Records every event of one client so a test can wait for a condition with a deadline.
///
/// `MQTTClient.events` has one consumer; this is it. Waiting polls the recorded list every 10 ms
/// until the predicate holds or the deadline passes — it waits for the condition, never a fixed time.
final class EventLog: Sendable {
    struct Timeout: Error, CustomStringConvertible {
        let description: String
    }

    /// A class around the Mutex so the recording task can share it (a Mutex cannot be captured).
    private final class Storage: Sendable {
        let events = Mutex<[MQTTEvent]>([])
    }

    private let storage = Storage()

    init(_ client: MQTTClient) {
        let events = client.events
        Task.detached { [storage] in
            for await event in events {
                storage.events.withLock { $0.append(event) }
            }
        }
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

/// A client for `url`, configured by `adjust`, with its event log.
func makeClient(_ url: String, _ adjust: (inout MQTTConfiguration) -> Void = { _ in }) throws -> (MQTTClient, EventLog) {
    var configuration = try MQTTConfiguration(url: url, clientID: "uwb2mqtt-test-\(UInt32.random(in: 0...UInt32.max))")
    adjust(&configuration)
    let client = try MQTTClient(configuration: configuration)
    return (client, EventLog(client))
}
