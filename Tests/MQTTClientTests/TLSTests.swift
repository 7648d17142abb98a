import MQTTClient
import Testing
import TestSupport

/// mqtts:// against a broker with certificates from a throw-away CA; host names are verified.
@Suite struct TLSTests {
    @Test func connectsWithCAFileAndPublishes() async throws {
        let ca = try await TestCA.create()
        let broker = try await MosquittoBroker.start(.init(tls: .init(caFile: ca.caFile, certFile: ca.serverCertFile,
                                                                        keyFile: ca.serverKeyFile)))
        defer { broker.stop() }
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["tls/#"])
        defer { subscriber.stop() }
        let (client, log) = try makeClient(try #require(broker.tlsURL)) { $0.caFile = ca.caFile }
        try client.start()
        try await log.waitForConnected()
        let id = try client.publish(topic: "tls/x", payload: "secure", qos: .atLeastOnce)
        try await log.waitFor(.published(messageID: id))
        try await subscriber.waitForMessage(topic: "tls/x") { $0.payload == "secure" }
        await client.disconnect()
    }

    @Test func clientCertificateIsPresentedWhenRequired() async throws {
        let ca = try await TestCA.create()
        let broker = try await MosquittoBroker.start(.init(tls: .init(caFile: ca.caFile, certFile: ca.serverCertFile,
                                                                        keyFile: ca.serverKeyFile,
                                                                        requireClientCertificate: true)))
        defer { broker.stop() }
        let (client, log) = try makeClient(try #require(broker.tlsURL)) {
            $0.caFile = ca.caFile
            $0.certFile = ca.clientCertFile
            $0.keyFile = ca.clientKeyFile
        }
        try client.start()
        try await log.waitForConnected()
        await client.disconnect()

        // Without a client certificate the same broker refuses the handshake.
        let (anonymous, anonymousLog) = try makeClient(try #require(broker.tlsURL)) { $0.caFile = ca.caFile }
        try anonymous.start()
        let (_, reason) = try await anonymousLog.waitForDisconnected()
        // TLS 1.3 finishes the client's side of the handshake before the broker checks for a
        // certificate, so the broker's alert arrives either as a TLS error or as a closed connection.
        switch reason {
        case .failed(.tls(let detail, _, _)):
            #expect(detail.contains("certificate required"))
        case .failed(.connectionLost):
            break
        default:
            Issue.record("expected a TLS failure or a closed connection, got \(reason)")
        }
        #expect(!anonymousLog.all.contains { if case .connected = $0 { true } else { false } })
        await anonymous.disconnect()
    }

    /// A broker certificate from an unknown CA fails with a TLS error that names the CA file.
    @Test func untrustedBrokerIsATLSErrorNamingTheCAFile() async throws {
        let ca = try await TestCA.create()
        let other = try await TestCA.create(name: "some other CA")
        let broker = try await MosquittoBroker.start(.init(tls: .init(caFile: ca.caFile, certFile: ca.serverCertFile,
                                                                        keyFile: ca.serverKeyFile)))
        defer { broker.stop() }
        let (client, log) = try makeClient(try #require(broker.tlsURL)) { $0.caFile = other.caFile }
        try client.start()
        let (first, reason) = try await log.waitForDisconnected()
        guard case .failed(.tls(let detail, let caFile, _)) = reason else {
            Issue.record("expected a TLS failure, got \(reason)")
            return
        }
        #expect(caFile == other.caFile)
        #expect("\(reason)".contains(other.caFile))
        #expect(detail.contains("certificate verify failed"))
        #expect(!client.isConnected)
        // libmosquitto's loop ends after a TLS failure; the client restarts it after the back-off.
        let (_, again) = try await log.waitForDisconnected(after: first + 1, timeout: .seconds(10))
        #expect(again == reason)
        await client.disconnect()
    }

    @Test func missingCertificateFileIsReportedBeforeConnecting() throws {
        var configuration = try MQTTConfiguration(url: "mqtts://localhost:8883")
        configuration.caFile = "/nonexistent/ca.crt"
        #expect(throws: MQTTError.fileNotReadable(role: "CA file", path: "/nonexistent/ca.crt")) {
            try TestClient(configuration: configuration, log: EventLog())
        }
    }
}
