@testable import Gateway
import EventLoop
import Foundation
import MQTTClient
import Service
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
        // The agent's loop, reduced to what this needs: every PUBACK goes to the publisher. It runs
        // on a thread of its own, so that waiting on it holds none of Swift concurrency's threads.
        let thread = try EventLoopThread()
        defer { thread.stop() }
        final class State: @unchecked Sendable {
            // Touched only on the loop's thread.
            var publisher: Publisher?
            var client: MQTTClient?
            var connected = false
            var events: [MQTTEvent] = []
        }
        let state = State()
        try thread.sync { loop in
            state.client = try MQTTClient(configuration: configuration, loop: loop) { event in
                state.events.append(event)
                switch event {
                case .connected: state.connected = true
                case let .published(id): _ = state.publisher?.acknowledged(id)
                default: break
                }
            }
            state.publisher = Publisher(client: state.client!, spool: try Spool(directory: directory.file("spool"), maximumBytes: 1 << 20), contract: try ContractProperties(liveExpirySeconds: 5))
            try state.client!.start()
        }
        #expect(await thread.perform { loop in loop.run(until: { state.connected }, deadline: Clocks.monotonic() + 10) },
                "\(thread.run { _ in state.events })")
        thread.run { _ in _ = state.publisher!.brokerConnected() }

        broker.kill(SIGSTOP)
        let spooled = thread.run { _ in
            var refused = 0
            for index in 0..<4 where state.publisher!.durable(topic: "w/state", payload: Array("s\(index)".utf8)[...], retain: false) != nil { refused += 1 }
            #expect(refused == 0)
            _ = state.publisher!.durable(topic: "w/event", payload: Array("journaled".utf8)[...], retain: false)
            let spooled = state.publisher!.spooled
            state.publisher!.live(topic: "w/range", payload: Array("held".utf8)[...], qos: 0)
            return spooled
        }
        #expect(spooled == 1, "the fifth found the window full and went to the journal")
        broker.kill(SIGCONT)

        #expect(await thread.perform { loop in
            loop.run(until: { state.publisher!.spooled == 0 && state.client!.outstandingMessageCount == 0 }, deadline: Clocks.monotonic() + 10)
        })
        try await subscriber.waitForMessage(topic: "w/event") { $0.payload == "journaled" }
        try await subscriber.waitForMessage(topic: "w/range") { $0.payload == "held" }
        _ = await thread.perform { _ in state.client!.disconnect() }
    }

    /// Answers to requests with an id are for different requesters: each is held, none replaces
    /// another (a flood of malformed pings must not replace the answer to the good one read
    /// before them); answers without an id, and live data, keep only the newest per topic.
    @Test func answersOnOneTopicAreEachHeld() throws {
        let directory = try TemporaryDirectory(prefix: "publisher-answers")
        let loop = try EventLoop()
        let client = try MQTTClient(configuration: try MQTTConfiguration(url: "mqtt://127.0.0.1:1", clientID: "answers"), loop: loop) { _ in }
        var publisher = Publisher(client: client, spool: try Spool(directory: directory.file("spool"), maximumBytes: 1 << 20), contract: try ContractProperties(liveExpirySeconds: 5))
        publisher.response(topic: "uwb2mqtt/gw/response/ping", payload: Array(#"{"id": "good", "ok": true}"#.utf8)[...], distinct: true, correlationData: nil)
        publisher.response(topic: "uwb2mqtt/gw/response/ping", payload: Array(#"{"id": "other", "ok": true}"#.utf8)[...], distinct: true, correlationData: nil)
        publisher.response(topic: "uwb2mqtt/gw/response/ping", payload: Array(#"{"ok": false}"#.utf8)[...], distinct: false, correlationData: nil)
        #expect(publisher.heldMessages == 3)
        #expect(publisher.dropped == 0)
        publisher.response(topic: "uwb2mqtt/gw/response/ping", payload: Array(#"{"ok": false}"#.utf8)[...], distinct: false, correlationData: nil)
        #expect(publisher.heldMessages == 3)
        #expect(publisher.dropped == 1)
        publisher.live(topic: "uwb2mqtt/gw/peer/cart/range", payload: Array("1".utf8)[...], qos: 0)
        publisher.live(topic: "uwb2mqtt/gw/peer/cart/range", payload: Array("2".utf8)[...], qos: 0)
        #expect(publisher.heldMessages == 4)
        #expect(publisher.dropped == 2)
    }

    /// While the broker is away, answers to a flood of distinct request names (each its own
    /// topic) are held up to a bound, the oldest dropped and counted.
    @Test func heldAnswersAreBounded() throws {
        let directory = try TemporaryDirectory(prefix: "publisher-held")
        let loop = try EventLoop()
        let client = try MQTTClient(configuration: try MQTTConfiguration(url: "mqtt://127.0.0.1:1", clientID: "held"), loop: loop) { _ in }
        var publisher = Publisher(client: client, spool: try Spool(directory: directory.file("spool"), maximumBytes: 1 << 20), contract: try ContractProperties(liveExpirySeconds: 5))
        for index in 0..<3000 {
            publisher.response(topic: "uwb2mqtt/gw/response/name-\(index)", payload: Array(repeating: 0x61, count: 200)[...], distinct: false, correlationData: nil)
        }
        #expect(publisher.heldMessages <= Publisher.maximumHeldTopics)
        #expect(publisher.heldMessages * 230 <= Publisher.maximumHeldBytes + 230)
        #expect(publisher.dropped == 3000 - publisher.heldMessages)
        // A big answer pushes out as many old ones as its size needs.
        publisher.response(topic: "uwb2mqtt/gw/response/big", payload: Array(repeating: 0x62, count: 900_000)[...], distinct: false, correlationData: nil)
        #expect(publisher.heldMessages < 1000 && publisher.heldMessages > 1)
    }
}
