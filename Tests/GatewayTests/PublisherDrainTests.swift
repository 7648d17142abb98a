@testable import Gateway
import EventLoop
import Foundation
import MQTTClient
import Service
import Testing
import TestSupport

/// The publisher delivering a journal against a real broker: live data and answers do not wait
/// behind it, events keep their order, and a message the broker can never take is dropped with a
/// reason instead of holding everything after it.
@Suite struct PublisherDrainTests {
    /// The agent's loop reduced to the publisher: every PUBACK goes to it. The loop runs on a
    /// thread of its own, so that waiting on it holds none of Swift concurrency's threads.
    final class Harness: @unchecked Sendable {
        // Touched only on the loop's thread.
        var publisher: Publisher!
        var client: MQTTClient!
        var connected = false
        var problems: [String] = []
        let thread: EventLoopThread
        let directory: TemporaryDirectory

        init(broker: MosquittoBroker, name: String) throws {
            directory = try TemporaryDirectory(prefix: name)
            let configuration = try MQTTConfiguration(url: broker.url, clientID: "\(name)-\(getpid())")
            thread = try EventLoopThread()
            try thread.sync { [self] loop in
                client = try MQTTClient(configuration: configuration, loop: loop) { [self] event in
                    switch event {
                    case .connected: connected = true
                    case let .published(id): if let problem = publisher.acknowledged(id) { problems.append(problem) }
                    default: break
                    }
                }
                publisher = Publisher(client: client, spool: try Spool(directory: directory.file("spool"), maximumBytes: 16 << 20), contract: try ContractProperties(liveExpirySeconds: 5))
            }
        }

        /// Connects and hands the connection to the publisher, then runs `afterwards` in the same
        /// turn of the loop (before any acknowledgement can arrive).
        func connect(afterwards: @escaping (inout Publisher) -> Void = { _ in }) async throws {
            try thread.sync { [self] _ in try client.start() }
            let connected = await thread.perform { [self] loop in loop.run(until: { self.connected }, deadline: Clocks.monotonic() + 10) }
            #expect(connected)
            thread.run { [self] _ in
                if let problem = publisher.brokerConnected() { problems.append(problem) }
                afterwards(&publisher)
            }
        }

        func drained() async -> Bool {
            await thread.perform { [self] loop in
                loop.run(until: { self.publisher.spooled == 0 && self.client.outstandingMessageCount == 0 }, deadline: Clocks.monotonic() + 30)
            }
        }

        func stop() {
            thread.run { [self] _ in _ = client.disconnect() }
            thread.stop()
        }
    }

    @Test func liveDataAndAnswersFlowWhileTheJournalDrains() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["d/#"])
        defer { subscriber.stop() }
        let harness = try Harness(broker: broker, name: "publisher-drain")
        defer { harness.stop() }
        let events = 500
        // Offline: every event goes to the journal.
        harness.thread.run { _ in
            for n in 0..<events {
                #expect(harness.publisher.durable(topic: "d/event", payload: Array("e\(n)".utf8)[...], retain: false) == nil)
            }
            #expect(harness.publisher.spooled == events)
        }
        try await harness.connect { publisher in
            #expect(publisher.spooled == events, "the journal is still being delivered")
            publisher.live(topic: "d/range", payload: Array("range".utf8)[...], qos: 0)
            publisher.response(topic: "d/response/ping", payload: Array("pong".utf8)[...], distinct: false, correlationData: nil)
            // An event produced now goes behind the journal: order is kept.
            _ = publisher.durable(topic: "d/event", payload: Array("e\(events)".utf8)[...], retain: false)
        }
        #expect(await harness.drained())
        try await subscriber.waitForMessage(topic: "d/event") { $0.payload == "e\(events)" }
        let messages = subscriber.messages
        #expect(messages.filter { $0.topic == "d/event" }.map(\.payload) == (0...events).map { "e\($0)" })
        let lastEvent = try #require(messages.lastIndex { $0.topic == "d/event" })
        let range = try #require(messages.firstIndex { $0.topic == "d/range" })
        let answer = try #require(messages.firstIndex { $0.topic == "d/response/ping" })
        #expect(range < lastEvent && answer < lastEvent, "live data and answers went out while the journal drained")
        #expect(harness.thread.run { _ in harness.problems }.isEmpty)
    }

    @Test func aMessageTheBrokerCannotTakeIsDroppedInsteadOfBlocking() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["r/#"])
        defer { subscriber.stop() }
        let harness = try Harness(broker: broker, name: "publisher-refused")
        defer { harness.stop() }
        harness.thread.run { _ in
            _ = harness.publisher.durable(topic: "r/event", payload: Array("before".utf8)[...], retain: false)
            // The journal takes it, the client never will (a wildcard in a topic to publish to).
            _ = harness.publisher.durable(topic: "r/+/event", payload: Array("bad".utf8)[...], retain: false)
            _ = harness.publisher.durable(topic: "r/event", payload: Array("after".utf8)[...], retain: false)
            // Longer than MQTT allows: refused by the journal at once, with a reason.
            let problem = harness.publisher.durable(topic: "r/" + String(repeating: "x", count: 70_000), payload: [1], retain: true)
            #expect(problem?.contains("(70002 bytes): a topic of 70002 bytes is longer than MQTT allows") == true, "\(problem ?? "")")
            #expect(harness.publisher.spooled == 3)
        }
        try await harness.connect()
        #expect(await harness.drained())
        try await subscriber.waitForMessage(topic: "r/event") { $0.payload == "after" }
        #expect(subscriber.messages.map(\.payload) == ["before", "after"])
        let (refused, dropped, problems) = harness.thread.run { _ in (harness.publisher.refused, harness.publisher.dropped, harness.problems) }
        #expect(refused == 2)
        #expect(dropped == 2)
        // Refusals can come once per message: the second within 10 s of the first is counted,
        // not written.
        #expect(!problems.contains { $0.contains("dropped a message for r/+/event") }, "\(problems)")
    }
}
