import MQTTClient
import Testing
import TestSupport

/// Username/password against a broker with a real mosquitto password file.
@Suite struct AuthenticationTests {
    static let password = "s3cret-Pa55"

    private func brokerWithPasswordFile() async throws -> (MosquittoBroker, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-passwd")
        let file = try await MosquittoPasswordFile.create(in: directory, username: "gateway", password: Self.password)
        return (try await MosquittoBroker.start(.init(passwordFile: file)), directory)
    }

    @Test func rightPasswordIsAccepted() async throws {
        let (broker, directory) = try await brokerWithPasswordFile()
        defer { broker.stop(); _ = directory }
        let (client, log) = try makeClient(broker.url) {
            $0.username = "gateway"
            $0.password = Self.password
        }
        try client.start()
        try await log.waitForConnected()
        await client.disconnect()
    }

    /// A refused password is a clear `.notAuthorized` that never shows the password, and the
    /// client keeps retrying (cli-and-config.md: `run` never gives up on a broker).
    @Test(arguments: [MQTTProtocolVersion.v311, .v5])
    func wrongPasswordIsNotAuthorizedAndRetried(version: MQTTProtocolVersion) async throws {
        let (broker, directory) = try await brokerWithPasswordFile()
        defer { broker.stop(); _ = directory }
        let wrong = "wrong-Pa55word"
        let (client, log) = try makeClient(broker.url) {
            $0.protocolVersion = version
            $0.username = "gateway"
            $0.password = wrong
        }
        try client.start()
        let (first, reason) = try await log.waitForDisconnected()
        guard case .failed(.notAuthorized(let text)) = reason else {
            Issue.record("expected notAuthorized, got \(reason)")
            return
        }
        #expect(text.contains("gateway"))
        #expect(!"\(reason)".contains(wrong) && !"\(reason)".contains(Self.password))
        // Retried after the back-off (1 s first), refused again.
        let (_, again) = try await log.waitForDisconnected(after: first + 1, timeout: .seconds(10))
        #expect(again == reason)
        #expect(!client.isConnected)
        await client.disconnect()
    }

    @Test func anonymousClientIsRefused() async throws {
        let (broker, directory) = try await brokerWithPasswordFile()
        defer { broker.stop(); _ = directory }
        let (client, log) = try makeClient(broker.url)
        try client.start()
        let (_, reason) = try await log.waitForDisconnected()
        guard case .failed(.notAuthorized) = reason else {
            Issue.record("expected notAuthorized, got \(reason)")
            return
        }
        await client.disconnect()
    }
}
