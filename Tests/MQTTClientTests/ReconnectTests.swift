import MQTTClient
import Testing
import TestSupport

/// The broker goes away and comes back on the same port: the client reconnects by itself,
/// subscribes again and messages flow both ways.
@Suite struct ReconnectTests {
    @Test func reconnectsAndRestoresSubscriptionsAfterBrokerRestart() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let (client, log) = try makeClient(broker.url)
        try client.subscribe(topic: "cmd/#", qos: .atLeastOnce)
        try client.start()
        try await log.waitFor(.subscribed(topic: "cmd/#", grantedQoS: .atLeastOnce))

        broker.stop()
        let (down, reason) = try await log.waitForDisconnected()
        guard case .failed(.connectionLost) = reason else {
            Issue.record("expected a lost connection, got \(reason)")
            return
        }
        #expect(!client.isConnected)

        try await broker.restart()
        // libmosquitto retries after 1 s, then 4 s, 9 s …: allow for a few attempts.
        let up = try await log.waitForConnected(after: down, timeout: .seconds(30))
        try await log.waitFor(.subscribed(topic: "cmd/#", grantedQoS: .atLeastOnce), after: up)

        try await MQTTTestPublisher.publish(broker: broker, topic: "cmd/ping", message: "again", qos: 1)
        #expect(try await log.waitForMessage(topic: "cmd/ping", after: up).text == "again")

        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["out/#"])
        defer { subscriber.stop() }
        let id = try client.publish(topic: "out/state", payload: "back", qos: .atLeastOnce)
        try await log.waitFor(.published(messageID: id))
        try await subscriber.waitForMessage(topic: "out/state") { $0.payload == "back" }
        await client.disconnect()
    }

    /// Broker down at start: the client keeps trying (loop_start before connect_async) and
    /// connects once the broker is up.
    @Test func connectsToABrokerThatStartsLater() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        broker.stop()
        let (client, log) = try makeClient(broker.url)
        try client.start()
        let (_, reason) = try await log.waitForDisconnected()
        guard case .failed(.connectionRefused) = reason else {
            Issue.record("expected connection refused, got \(reason)")
            return
        }
        try await broker.restart()
        try await log.waitForConnected(timeout: .seconds(30))
        await client.disconnect()
    }
}
