import MQTTClient
import Testing
import TestSupport

/// Publishing while the broker is away, as documented on `MQTTClient.publish`: QoS 0 throws
/// `.notConnected`; QoS 1 is kept by libmosquitto up to `maxQueuedMessages`, then `.queueFull`;
/// what was kept is delivered after the reconnect.
@Suite struct OfflinePublishTests {
    @Test func qos1IsQueuedWithinTheBoundAndDeliveredAfterReconnect() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let (client, log) = try makeClient(broker.url) { $0.maxQueuedMessages = 3 }
        try client.start()
        try await log.waitForConnected()

        broker.stop()
        let (down, _) = try await log.waitForDisconnected()

        #expect(throws: MQTTError.notConnected) { try client.publish(topic: "o/live", payload: "dropped") }
        // Retained, so that a subscriber started after the restart sees each of them.
        let ids = try (1...3).map { try client.publish(topic: "o/\($0)", payload: "kept \($0)", qos: .atLeastOnce, retain: true) }
        #expect(client.outstandingMessageCount == 3)
        #expect(throws: MQTTError.queueFull(limit: 3)) {
            try client.publish(topic: "o/4", payload: "refused", qos: .atLeastOnce, retain: true)
        }

        try await broker.restart()
        let up = try await log.waitForConnected(after: down, timeout: .seconds(30))
        for id in ids { try await log.waitFor(.published(messageID: id), after: up) }
        #expect(client.outstandingMessageCount == 0)

        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["o/#"])
        defer { subscriber.stop() }
        let received = try await subscriber.waitForMessages(topic: "o/3", count: 1)
        #expect(received.first?.payload == "kept 3")
        for n in 1...2 { try await subscriber.waitForMessage(topic: "o/\(n)") { $0.payload == "kept \(n)" } }
        #expect(!subscriber.messages.contains { $0.topic == "o/4" || $0.topic == "o/live" })

        // Room again: a new QoS 1 publish is accepted.
        try client.publish(topic: "o/5", payload: "room", qos: .atLeastOnce)
        await client.disconnect()
    }
}
