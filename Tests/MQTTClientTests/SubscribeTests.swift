import MQTTClient
import Testing
import TestSupport

/// Receiving: messages sent by a real mosquitto_pub arrive as `.message` events.
@Suite struct SubscribeTests {
    @Test func receivesLiveAndRetainedMessages() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        try await MQTTTestPublisher.publish(broker: broker, topic: "in/kept", message: "before", retain: true)

        let (client, log) = try makeClient(broker.url)
        try client.subscribe(topic: "in/#", qos: .atLeastOnce)   // before start: sent on CONNACK
        try client.start()
        try await log.waitFor(.subscribed(topic: "in/#", grantedQoS: .atLeastOnce))

        let retained = try await log.waitForMessage(topic: "in/kept")
        #expect(retained.text == "before")
        #expect(retained.retained)

        try await MQTTTestPublisher.publish(broker: broker, topic: "in/live", message: "hello", qos: 1)
        let live = try await log.waitForMessage(topic: "in/live")
        #expect(live == MQTTMessage(topic: "in/live", payload: Array("hello".utf8), qos: .atLeastOnce, retained: false))

        // Unsubscribed filters stop delivering: a marker on another subscription proves ordering.
        try client.subscribe(topic: "marker", qos: .atLeastOnce)
        try await log.waitFor(.subscribed(topic: "marker", grantedQoS: .atLeastOnce))
        try client.unsubscribe(topic: "in/#")
        try await broker.waitForLog(containing: "Received UNSUBSCRIBE from \(client.configuration.clientID!)")
        try await MQTTTestPublisher.publish(broker: broker, topic: "in/after", message: "ignored", qos: 1)
        try await MQTTTestPublisher.publish(broker: broker, topic: "marker", message: "done", qos: 1)
        try await log.waitForMessage(topic: "marker")
        #expect(!log.all.contains { if case .message(let m) = $0 { m.topic == "in/after" } else { false } })

        await client.disconnect()
    }
}
