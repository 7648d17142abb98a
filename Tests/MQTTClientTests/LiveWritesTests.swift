import Glibc
import MQTTClient
import Testing
import TestSupport

/// QoS 0 packets the client writes itself on a plain TCP connection (`LiveWrites`), beside
/// libmosquitto's own, against a real broker.
@Suite struct LiveWritesTests {
    /// A broker that stops reading (SIGSTOP) fills the socket: the client keeps what the socket
    /// did not take, refuses more past its bound with `.backlog`, and once the broker reads again
    /// every accepted message arrives, in order, before a QoS 1 message published after them —
    /// the stream never carried half a packet (the broker would have closed the connection).
    @Test(arguments: [MQTTProtocolVersion.v311, .v5])
    func aBrokerThatStopsReadingBacksUpLiveDataWithoutBreakingTheStream(version: MQTTProtocolVersion) async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.kill(SIGCONT); broker.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["s/#"])
        defer { subscriber.stop() }
        let (client, log) = try makeClient(broker.url) { $0.protocolVersion = version }
        try client.start()
        try await log.waitForConnected()

        broker.kill(SIGSTOP)
        let (accepted, refused) = try Self.publishUntilRefused(client)
        #expect(refused, "the client took \(accepted) messages without refusing any")
        #expect(client.isConnected)

        broker.kill(SIGCONT)
        let marker = try client.publish(topic: "s/marker", payload: "after", qos: .atLeastOnce)
        try await log.waitFor(.published(messageID: marker), timeout: .seconds(30))
        try await subscriber.waitForMessage(topic: "s/marker", timeout: .seconds(30))
        let received = subscriber.messages.filter { $0.topic == "s/live" }.compactMap { Int($0.payload.prefix { $0 != " " }) }
        #expect(received.last == accepted - 1)
        #expect(zip(received, received.dropFirst()).allSatisfy { $0 < $1 }, "out of order")
        #expect(subscriber.messages.last?.topic == "s/marker")
        #expect(!log.all.contains { if case .disconnected = $0 { true } else { false } })
        await client.disconnect()
    }

    /// The broker dies (SIGKILL) while the client still holds live data it could not write: the
    /// next connection starts with its CONNECT, not the rest of the old connection's data: the
    /// first attempt after the restart is accepted, and what is published then arrives.
    @Test func aConnectionLostWithLiveDataUnwrittenStartsTheNextOneClean() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.kill(SIGCONT); broker.stop() }
        let (client, log) = try makeClient(broker.url)
        try client.start()
        let first = try await log.waitForConnected()

        broker.kill(SIGSTOP)
        let (_, refused) = try Self.publishUntilRefused(client)
        #expect(refused)
        broker.kill(SIGKILL)
        try await broker.restart()
        let second = try await log.waitForConnected(after: first + 1, timeout: .seconds(30))
        // One disconnect (the broker's death), not a second one for a first attempt that began
        // with the rest of the old connection's data.
        let disconnects = log.all[(first + 1)..<second].filter { if case .disconnected = $0 { true } else { false } }
        #expect(disconnects.count == 1, "\(disconnects)")

        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["s/#"])
        defer { subscriber.stop() }
        let marker = try client.publishTogether { client throws(MQTTError) in
            for index in 0..<20 { try client.publish(topic: "s/after", payload: "\(index)") }
            return [try client.publish(topic: "s/marker", payload: Array("after".utf8), qos: .atLeastOnce)]
        }
        try await log.waitFor(.published(messageID: marker[0]), timeout: .seconds(30))
        let received = try await subscriber.waitForMessages(topic: "s/after", count: 20)
        #expect(received.map(\.payload) == (0..<20).map { "\($0)" })
        #expect(!log.all[(second + 1)...].contains { if case .disconnected = $0 { true } else { false } })
        await client.disconnect()
    }

    /// Publishes 300-byte QoS 0 messages, a wake-up of the loop per 500, until the client refuses
    /// one with `.backlog` (or 200,000 went): how many it took, and whether it refused.
    static func publishUntilRefused(_ client: TestClient) throws -> (accepted: Int, refused: Bool) {
        let padding = String(repeating: "x", count: 300)
        var accepted = 0
        var refused = false
        // One call a wake-up of the loop: the flush after each writes what the socket takes.
        while !refused && accepted < 200_000 {
            let first = accepted
            let outcome = try client.publishTogether { client throws(MQTTError) in
                for index in first..<first + 500 {
                    do throws(MQTTError) {
                        try client.publish(topic: "s/live", payload: "\(index) \(padding)")
                    } catch .backlog {
                        return [index - first, 1]
                    }
                }
                return [500, 0]
            }
            accepted += outcome[0]
            refused = outcome[1] == 1
        }
        return (accepted, refused)
    }

    /// Topics with what libmosquitto's UTF-8 check refuses are refused on this path too.
    @Test func controlCharactersInATopicAreRefused() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let (client, log) = try makeClient(broker.url)
        try client.start()
        try await log.waitForConnected()
        let refused: [UInt32] = [0x01, 0x1F, 0x7F, 0x85, 0xFDD0, 0xFFFE, 0x1FFFF]
        for topic in refused.map({ "a/" + String(Unicode.Scalar($0)!) + "b" }) {
            #expect(throws: MQTTError.invalidTopic(topic: topic, reason: "it is not valid UTF-8")) {
                try client.publish(topic: topic, payload: "x")
            }
        }
        try client.publish(topic: "a/é/日本/🚀", payload: "fine")
        await client.disconnect()
    }
}
