@testable import Gateway
import EventLoop
import Foundation
import MQTTClient
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
        // The agent's loop, reduced to what this needs: every PUBACK goes to the publisher.
        let loop = try EventLoop()
        var publisher: Publisher?
        var connected = false
        let client = try MQTTClient(configuration: configuration, loop: loop) { event in
            switch event {
            case .connected: connected = true
            case let .published(id): _ = publisher?.acknowledged(id)
            default: break
            }
        }
        publisher = Publisher(client: client, spool: try Spool(directory: directory.file("spool"), maximumBytes: 1 << 20))
        try client.start()
        #expect(loop.run(until: { connected }, deadline: Clocks.monotonic() + 10))
        _ = publisher!.brokerConnected()

        broker.kill(SIGSTOP)
        for index in 0..<4 { #expect(publisher!.durable(topic: "w/state", payload: Array("s\(index)".utf8), retain: false) == nil) }
        _ = publisher!.durable(topic: "w/event", payload: Array("journaled".utf8), retain: false)
        #expect(publisher!.spooled == 1, "the fifth found the window full and went to the journal")
        publisher!.live(topic: "w/range", payload: Array("held".utf8), qos: 0)
        broker.kill(SIGCONT)

        #expect(loop.run(until: { publisher!.spooled == 0 && client.outstandingMessageCount == 0 }, deadline: Clocks.monotonic() + 10))
        try await subscriber.waitForMessage(topic: "w/event") { $0.payload == "journaled" }
        try await subscriber.waitForMessage(topic: "w/range") { $0.payload == "held" }
        client.disconnect()
    }
}
