#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import MQTTClient
import Testing
import TestSupport

/// `disconnect()` flushes unacknowledged QoS 1 messages within its deadline and reports the rest.
/// The broker is frozen with SIGSTOP (its sockets stay open) so that messages really are unacknowledged.
@Suite struct DisconnectTests {
    @Test func cleanDisconnectDeliversOutstandingQoS1() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.kill(SIGCONT); broker.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["f/#"])
        defer { subscriber.stop() }
        let (client, log) = try makeClient(broker.url)
        try client.start()
        try await log.waitForConnected()

        broker.kill(SIGSTOP)
        let ids = try (1...5).map { try client.publish(topic: "f/\($0)", payload: "m\($0)", qos: .atLeastOnce) }
        #expect(client.outstandingMessageCount == 5)
        // The broker resumes while disconnect() is waiting (or, at worst, just before: the
        // assertions hold either way).
        let resume = Task {
            try await Task.sleep(for: .milliseconds(300))
            broker.kill(SIGCONT)
        }
        let undelivered = await client.disconnect(timeout: .seconds(10))
        try await resume.value
        #expect(undelivered == 0)
        for n in 1...5 { try await subscriber.waitForMessage(topic: "f/\(n)") { $0.payload == "m\(n)" } }
        for id in ids { try await log.waitFor(.published(messageID: id)) }
        try await log.waitFor(.disconnected(.requested))
    }

    @Test func disconnectReportsWhatTheDeadlineLeftUnacknowledged() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.kill(SIGCONT); broker.stop() }
        let (client, log) = try makeClient(broker.url)
        try client.start()
        try await log.waitForConnected()

        broker.kill(SIGSTOP)
        for n in 1...2 { try client.publish(topic: "d/\(n)", payload: "m\(n)", qos: .atLeastOnce) }
        let started = ContinuousClock.now
        let undelivered = await client.disconnect(timeout: .milliseconds(300))
        #expect(undelivered == 2)
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(throws: MQTTError.closed) { try client.publish(topic: "d/3", payload: "late", qos: .atLeastOnce) }
    }
}
