#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Testing
import TestSupport

/// The fixture the broker tests stand on: a child spawned from a Swift Testing worker thread must
/// honour SIGTERM (Foundation.Process children do not, design notes §4.2).
@Suite struct ChildProcessTests {
    @Test func childStopsOnSIGTERM() async throws {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-child")
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["1000"],
                                     stdoutPath: directory.file("out"), stderrPath: directory.file("err"))
        defer { child.terminate() }
        #expect(child.isRunning)
        #expect(child.terminate(grace: .seconds(5)) == .signaled(SIGTERM))
        #expect(!child.isRunning)
    }

    @Test func exitStatusIsReported() async throws {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-child")
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo hi; exit 3"],
                                     stdoutPath: directory.file("out"), stderrPath: directory.file("err"))
        defer { child.terminate() }
        #expect(await child.waitForExit(timeout: .seconds(10)) == .exited(3))
    }

    @Test func missingExecutableIsAnError() throws {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-child")
        #expect(throws: TestSupportError.self) {
            try ChildProcess(executable: "/nonexistent/tool", arguments: [],
                             stdoutPath: directory.file("out"), stderrPath: directory.file("err"))
        }
    }
}
