import MQTTClient
import Testing
import TestSupport

/// Publishing through a real broker, witnessed by a real mosquitto_sub.
@Suite struct PublishTests {
    @Test(arguments: [MQTTProtocolVersion.v311, .v5])
    func qos0Qos1AndRetainedReachASubscriber(version: MQTTProtocolVersion) async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["t/#"])
        defer { subscriber.stop() }
        let (client, log) = try makeClient(broker.url) { $0.protocolVersion = version }
        try client.start()
        try await log.waitForConnected()
        #expect(client.isConnected)

        try client.publish(topic: "t/q0", payload: "zero")
        let q1 = try client.publish(topic: "t/q1", payload: Array("one".utf8), qos: .atLeastOnce)
        let kept = try client.publish(topic: "t/retained", payload: "kept", qos: .atLeastOnce, retain: true)

        try await subscriber.waitForMessage(topic: "t/q0") { $0.payload == "zero" }
        try await subscriber.waitForMessage(topic: "t/q1") { $0.payload == "one" }
        try await subscriber.waitForMessage(topic: "t/retained") { $0.payload == "kept" }
        try await log.waitFor(.published(messageID: q1))
        try await log.waitFor(.published(messageID: kept))
        #expect(client.outstandingMessageCount == 0)

        // A subscriber that arrives later gets the retained message from the broker's store, flagged.
        let late = try await MQTTTestSubscriber.start(broker: broker, topics: ["t/retained"])
        defer { late.stop() }
        let retained = try await late.waitForMessage(topic: "t/retained")
        #expect(retained == MQTTTestSubscriber.Message(topic: "t/retained", payload: "kept", retained: true))

        #expect(await client.disconnect() == 0)
        try await log.waitFor(.disconnected(.requested))
    }

    /// What one wake-up of the loop publishes (what the agent publishes for one UWB notification)
    /// leaves together before the loop waits again: every message arrives, in the order
    /// published, QoS 0 and 1 mixed.
    @Test func oneWakeUpsMessagesArriveWholeAndInOrder() async throws {
        try await expectOneWakeUpArrivesInOrder(
            (0..<50).flatMap { $0 % 10 == 9 ? [("\($0)", MQTTQoS.atMostOnce), ("\($0)!", .atLeastOnce)] : [("\($0)", .atMostOnce)] }
                + [("inner", .atMostOnce)])
    }

    /// A wake-up that starts with QoS 1 messages (a round's first events and state, ahead of its
    /// ranges): they go out at once under a cork, and what follows still arrives after them, in
    /// the order published, once the flush lifts the cork.
    @Test func messagesAfterALeadingQoS1MessageArriveInOrder() async throws {
        try await expectOneWakeUpArrivesInOrder(
            [("event", .atLeastOnce), ("state", .atLeastOnce)] + (0..<16).map { ("\($0)", MQTTQoS.atMostOnce) }
                + [("ranking", .atLeastOnce), ("last", .atMostOnce)])
    }

    /// Publishes `messages` (payload, QoS) on one topic in one wake-up of the client's loop and
    /// expects a subscriber to get them all in that order, and every QoS 1 one acknowledged.
    private func expectOneWakeUpArrivesInOrder(_ messages: [(payload: String, qos: MQTTQoS)]) async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["b/#"])
        defer { subscriber.stop() }
        let (client, log) = try makeClient(broker.url)
        try client.start()
        try await log.waitForConnected()

        let acknowledged = try client.publishTogether { client throws(MQTTError) in
            var acknowledged: [Int] = []
            for (payload, qos) in messages {
                if qos == .atMostOnce {
                    try client.publish(topic: "b/seq", payload: payload)
                } else {
                    acknowledged.append(try client.publish(topic: "b/seq", payload: Array(payload.utf8), qos: qos))
                }
            }
            return acknowledged
        }
        let received = try await subscriber.waitForMessages(topic: "b/seq", count: messages.count)
        #expect(received.map(\.payload) == messages.map(\.payload))
        for id in acknowledged { try await log.waitFor(.published(messageID: id)) }
        #expect(client.outstandingMessageCount == 0)
        await client.disconnect()
    }
}
