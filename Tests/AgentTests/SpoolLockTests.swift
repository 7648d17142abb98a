import Foundation
import Testing
import TestSupport

/// Two agents on one spool directory would interleave their journal records and read pointers:
/// the second is refused, says why, and exits 1, and the first runs on.
@Suite struct SpoolLockTests {
    @Test func aSecondAgentOnTheSameSpoolIsRefused() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "agent-spool-lock")
        let spool = dir.file("spool")
        let first = try AgentProcess(config: testConfig(url: broker.url, spool: spool), directory: dir, name: "first")
        defer { first.stop() }
        await eventually("the first agent to range") { first.log.contains("ranging with") }

        let second = try AgentProcess(config: testConfig(url: broker.url, spool: spool), directory: dir, name: "second")
        defer { second.stop() }
        #expect(await second.process.waitForExit(timeout: .seconds(10)) == .exited(1))
        #expect(second.log.contains("the spool directory \(spool) is in use by another uwb2mqtt agent (pid \(first.process.pid))"), "\(second.log)")
        #expect(first.process.isRunning)
    }

    /// Two agents with one gateway id on separate spools: the broker drops each when the other
    /// connects with the same client id. They say so, naming the id.
    @Test func aClientIDClashIsNamedInTheLog() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "agent-client-id")
        let first = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool-1")), directory: dir, name: "first")
        defer { first.stop() }
        await eventually("the first agent to connect") { first.log.contains("connected to the broker") }
        let second = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool-2")), directory: dir, name: "second")
        defer { second.stop() }
        let warning = "another client may be using the client id \"uwb2mqtt-gw\""
        await eventually("a warning about the client id", timeout: 60) { first.log.contains(warning) || second.log.contains(warning) }
    }
}
