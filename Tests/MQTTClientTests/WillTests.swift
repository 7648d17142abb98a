#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import MQTTClient
import Testing
import TestSupport

/// The last will: published by the broker when a connection ends without DISCONNECT, not otherwise.
@Suite struct WillTests {
    /// The broker side of the contract, with a client we can kill -9: mosquitto_sub holding a will.
    @Test func brokerPublishesTheWillOfAKilledClient() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let witness = try await MQTTTestSubscriber.start(broker: broker, topics: ["will/#"])
        defer { witness.stop() }
        let holder = try await MQTTTestSubscriber.start(
            broker: broker, topics: ["unused"],
            extraArguments: ["--will-topic", "will/sub", "--will-payload", "gone", "--will-qos", "1"])
        defer { holder.stop() }
        holder.kill(SIGKILL)
        try await witness.waitForMessage(topic: "will/sub") { $0.payload == "gone" }
    }

    /// Our client sets its will: an abrupt connection loss (socket shut down under libmosquitto, no
    /// DISCONNECT — `abortConnection()`) makes the broker publish it, and the client reconnects.
    @Test(arguments: [MQTTProtocolVersion.v311, .v5])
    func ourWillIsPublishedOnAbruptLossButNotOnCleanDisconnect(version: MQTTProtocolVersion) async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let witness = try await MQTTTestSubscriber.start(broker: broker, topics: ["will/#"])
        defer { witness.stop() }

        let (client, log) = try makeClient(broker.url) {
            $0.protocolVersion = version
            $0.will = MQTTWill(topic: "will/client", payload: #"{"state":"offline"}"#, qos: .atLeastOnce, retain: true)
        }
        try client.start()
        try await log.waitForConnected()

        client.abortConnection()
        try await witness.waitForMessage(topic: "will/client") { $0.payload == #"{"state":"offline"}"# }
        let (lost, reason) = try await log.waitForDisconnected()
        guard case .failed(.connectionLost) = reason else {
            Issue.record("expected a lost connection, got \(reason)")
            return
        }
        try await log.waitForConnected(after: lost)

        // A clean disconnect publishes no will: the broker handles our DISCONNECT before the marker,
        // so the marker arriving with no second will message proves it.
        let willsBefore = witness.messages.filter { $0.topic == "will/client" }.count
        await client.disconnect()
        try await MQTTTestPublisher.publish(broker: broker, topic: "will/marker", message: "after", qos: 1)
        try await witness.waitForMessage(topic: "will/marker")
        #expect(witness.messages.filter { $0.topic == "will/client" }.count == willsBefore)
    }
}
