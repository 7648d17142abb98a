@testable import Gateway
import Foundation
import MQTTClient
import Synchronization
import Testing
import TestSupport

/// The publisher's QoS 1 window against a real broker, frozen with SIGSTOP so that PUBACKs wait.
@Suite struct PublisherWindowTests {
    /// An event that finds the window full while connected goes to the journal, and the next
    /// acknowledgement delivers it: it does not wait for a reconnect, and the live data held
    /// behind it goes out too.
    @Test func anEventJournaledWhileConnectedIsDeliveredByTheNextAcknowledgement() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["w/#"])
        defer { subscriber.stop() }
        let directory = try TemporaryDirectory(prefix: "publisher-window")
        var configuration = try MQTTConfiguration(url: broker.url, clientID: "publisher-window-\(getpid())")
        configuration.maxQueuedMessages = 4
        let client = try MQTTClient(configuration: configuration)
        let recorded = Recorder(client)
        var publisher = Publisher(client: client, spool: try Spool(directory: directory.file("spool"), maximumBytes: 1 << 20))
        try client.start()
        var seen = try await recorded.wait(after: 0) { if case .connected = $0 { true } else { false } }
        _ = publisher.brokerConnected()

        broker.kill(SIGSTOP)
        for index in 0..<4 { #expect(publisher.durable(topic: "w/state", payload: Array("s\(index)".utf8), retain: false) == nil) }
        _ = publisher.durable(topic: "w/event", payload: Array("journaled".utf8), retain: false)
        #expect(publisher.spooled == 1, "the fifth found the window full and went to the journal")
        publisher.live(topic: "w/range", payload: Array("held".utf8), qos: 0)
        broker.kill(SIGCONT)

        // The agent's loop, reduced to what this needs: every PUBACK goes to the publisher.
        while publisher.spooled > 0 || client.outstandingMessageCount > 0 {
            seen = try await recorded.wait(after: seen + 1) { if case .published = $0 { true } else { false } }
            if case let .published(id) = recorded.events[seen] { _ = publisher.acknowledged(id) }
        }
        try await subscriber.waitForMessage(topic: "w/event") { $0.payload == "journaled" }
        try await subscriber.waitForMessage(topic: "w/range") { $0.payload == "held" }
        await client.disconnect()
    }
}

/// Every event of one client, in order, for a test to wait on with a deadline.
private final class Recorder: Sendable {
    private let storage = Mutex<[MQTTEvent]>([])

    init(_ client: MQTTClient) {
        let events = client.events
        Task.detached { [self] in
            for await event in events { storage.withLock { $0.append(event) } }
        }
    }

    var events: [MQTTEvent] { storage.withLock { $0 } }

    /// The index of the first event at or after `after` that `matches` accepts.
    func wait(after: Int, timeout: Duration = .seconds(10), _ matches: (MQTTEvent) -> Bool) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while true {
            let all = events
            if let index = all.indices.first(where: { $0 >= after && matches(all[$0]) }) { return index }
            guard ContinuousClock.now < deadline else {
                throw TestSupportError.timedOut(waitingFor: "an MQTT event", after: timeout, detail: "\(all)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
