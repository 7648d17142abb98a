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
}
