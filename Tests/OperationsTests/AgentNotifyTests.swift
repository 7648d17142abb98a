import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The agent speaks sd_notify as the unit expects (Type=notify, WatchdogSec): the real
/// executable run with NOTIFY_SOCKET and WATCHDOG_USEC as systemd sets them.
@Suite(.serialized, .timeLimit(.minutes(1))) struct AgentNotifyTests {
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("uwb2mqtt").path
    }

    @Test func readyWatchdogAndStopping() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "notify")
        let listener = try SystemdNotifierTests.Listener(path: dir.file("notify.sock"))
        let config = try dir.write("config.yaml", """
        gateway: {id: gw}
        device: {peers: [{address: 0x0001}]}
        mqtt: {url: "\(broker.url)", spool_dir: "\(dir.file("spool"))"}
        """)
        // systemd gives the main process these two variables; WATCHDOG_PID names it, so it is
        // left out here (the agent then takes the watchdog as its own).
        let agent = try ChildProcess(executable: "/usr/bin/env",
                                     arguments: ["NOTIFY_SOCKET=\(dir.file("notify.sock"))", "WATCHDOG_USEC=1000000",
                                                 Self.binary, "run", "--config", config, "--simulate"],
                                     stdoutPath: dir.file("agent.out"), stderrPath: dir.file("agent.err"))
        defer { agent.terminate() }
        var received: [String] = []
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, !(received.contains { $0.contains("READY=1") } && received.filter { $0.contains("WATCHDOG=1") }.count >= 2) {
            if let datagram = listener.receive(timeoutMilliseconds: 500) { received.append(datagram) }
        }
        #expect(received.contains { $0.contains("READY=1") }, "\(received)")
        #expect(received.filter { $0.contains("WATCHDOG=1") }.count >= 2, "\(received)")
        #expect(agent.terminate() == .exited(0))
        var rest: [String] = []
        while let datagram = listener.receive(timeoutMilliseconds: 500) { rest.append(datagram) }
        #expect((received + rest).contains { $0.contains("STOPPING=1") }, "\(received + rest)")
    }
}
