import Foundation
import Testing
import TestSupport

/// `uwb2mqtt watch` on a terminal as a person sees it: the real executable in a detached tmux
/// session of 80×24 against a real mosquitto and the agent on the simulator, read off the pane.
@Suite(.serialized, .timeLimit(.minutes(3))) struct WatchTerminalTests {
    /// A tmux server of its own (`-L`), so that the test never touches anyone else's sessions.
    struct Tmux {
        let socket = "uwb2mqtt-test-\(getpid())-\(UInt32.random(in: 1...UInt32.max))"
        let dir: TemporaryDirectory

        /// One tmux command; its output goes to files, not a pipe: the server that the first
        /// command starts keeps the client's descriptors, so a pipe would never reach its end.
        @discardableResult
        func run(_ arguments: [String]) async -> (status: ChildProcess.Termination?, output: String) {
            guard let child = try? ChildProcess(executable: "/usr/bin/tmux", arguments: ["-L", socket, "-f", "/dev/null"] + arguments,
                                                stdoutPath: dir.file("tmux.out"), stderrPath: dir.file("tmux.err")) else { return (nil, "") }
            let status = await child.waitForExit(timeout: .seconds(10))
            return (status, [child.stdoutPath, child.stderrPath].map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }.joined())
        }

        /// The pane's rows as shown, trailing blanks cut.
        func screen() async -> [String] {
            await run(["capture-pane", "-p", "-t", "watch"]).output.split(separator: "\n", omittingEmptySubsequences: false)
                .map { String($0.reversed().drop { $0 == " " }.reversed()) }
        }

        /// Captures the pane until `condition` holds of it or `timeout` passes (an issue then); the last capture.
        @discardableResult
        func screen(until what: String, timeout: Double = 15, _ condition: ([String]) -> Bool) async -> [String] {
            let deadline = Date().addingTimeInterval(timeout)
            var shown = await screen()
            while !condition(shown) {
                guard Date() < deadline else {
                    Issue.record(Comment(rawValue: "timed out waiting for \(what); the screen:\n" + shown.joined(separator: "\n")))
                    break
                }
                try? await Task.sleep(for: .milliseconds(50))
                shown = await screen()
            }
            return shown
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func theDrawnViewShowsTheGatewayItsPeersAndEvents() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-tmux")
        let tmux = Tmux(dir: dir)
        let started = await tmux.run(["new-session", "-d", "-s", "watch", "-x", "80", "-y", "24",
                                "exec '\(AgentProcess.executable)' watch --broker \(broker.url) 2>'\(dir.file("watch.err"))'"])
        try #require(started.status == .exited(0), "tmux: \(started.output)")
        // The server ends with its sessions (and watch with its pane) on SIGTERM; a defer cannot
        // await a tmux command, but it can send a signal.
        let server = try #require(pid_t(await tmux.run(["display-message", "-p", "-t", "watch", "#{pid}"]).output.trimmingCharacters(in: .whitespacesAndNewlines)))
        defer { kill(server, SIGTERM) }
        await tmux.screen(until: "watch connected") { $0.first?.contains("broker \(broker.url): connected") == true }

        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(AgentFixtures.exampleRulesPath)"),
                                     scenario: AgentFixtures.walkBy, directory: dir)
        defer { agent.stop() }
        // A peer row with a distance and its bar.
        let peerRow = #/^  phone-anna   ranging     +\d+\.\d\d m  [█▏▎▍▌▋▊▉]+ +\d/#
        await tmux.screen(until: "phone-anna's row with a distance", timeout: 60) { $0.contains { $0.contains(peerRow) } }
        let screen = await tmux.screen(until: "an event", timeout: 60) { $0.contains { $0.contains(#/^\d\d:\d\d:\d\d gw  \S+  \S+/#) } }
        let shown = screen.joined(separator: "\n")
        #expect(screen.count >= 24, "\(shown)")
        #expect(screen[0].contains(#/^uwb2mqtt watch  \d\d:\d\d:\d\d UTC  broker \S+: connected$/#), "\(shown)")
        #expect(screen.contains { $0.contains(#/^gw  online  device ranging fw \S+  .*rules ok [0-9a-f]{8}$/#) }, "\(shown)")
        #expect(screen.contains { $0.contains(#/^  peer +link +distance  0 +\d+\.\d\d m +age  stage, zones, approaches$/#) }, "\(shown)")
        #expect(screen.contains { $0.hasPrefix("  tool-cart ") }, "\(shown)")
        #expect(screen.contains("latest events"), "\(shown)")
        // The view is drawn, not printed: no line of the plain view's connection messages.
        #expect(!screen.contains { $0.contains(": connecting, following") }, "\(shown)")

        await tmux.run(["send-keys", "-t", "watch", "C-c"])
        let deadline = Date().addingTimeInterval(10)
        while await tmux.run(["has-session", "-t", "watch"]).status == .exited(0), Date() < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        #expect(await tmux.run(["has-session", "-t", "watch"]).status != .exited(0), "watch still running after Ctrl-C")
    }
}
