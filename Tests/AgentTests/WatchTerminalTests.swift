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
        /// The bound is generous: with the rest of the suite running beside it, a redraw can wait seconds for a core.
        @discardableResult
        func screen(until what: String, timeout: Double = 30, _ condition: ([String]) -> Bool) async -> [String] {
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

    /// Starts `command` in the pane of a new detached session `watch` of `width` × `height`; the
    /// tmux server's PID, for the caller's `defer { kill(server, SIGTERM) }`: the server ends with
    /// its sessions (and whatever runs in its panes gets SIGHUP).
    func start(_ tmux: Tmux, _ command: String, width: Int = 80, height: Int = 24) async throws -> pid_t {
        let started = await tmux.run(["new-session", "-d", "-s", "watch", "-x", "\(width)", "-y", "\(height)", command])
        try #require(started.status == .exited(0), "tmux: \(started.output)")
        return try #require(pid_t(await tmux.run(["display-message", "-p", "-t", "watch", "#{pid}"]).output.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// The pane's command that runs watch against `broker`, its standard error in `dir`.
    func watchCommand(_ broker: MosquittoBroker, _ dir: TemporaryDirectory) -> String {
        "exec '\(AgentProcess.executable)' watch --broker \(broker.url) 2>'\(dir.file("watch.err"))'"
    }

    /// Types at the pane's shell `echo before-watch` and a command that writes the PID watch will
    /// have (exec keeps it) before running it, so that the test can signal watch itself and not
    /// the shell; waits for the drawn view and returns that PID.
    func startWatchFromTheShell(_ tmux: Tmux, _ broker: MosquittoBroker, _ dir: TemporaryDirectory) async throws -> pid_t {
        let pidFile = dir.file("watch.pid")
        await tmux.run(["send-keys", "-t", "watch", "echo before-watch; sh -c 'echo $$ > \"$0\"; exec \"$1\" watch --broker \"$2\"' '\(pidFile)' '\(AgentProcess.executable)' \(broker.url)", "Enter"])
        await tmux.screen(until: "the drawn view") { $0.first?.hasPrefix("uwb2mqtt watch  ") == true }
        return try #require(pid_t((try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func theDrawnViewShowsTheGatewayItsPeersAndEvents() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-tmux")
        let tmux = Tmux(dir: dir)
        let server = try await start(tmux, watchCommand(broker, dir))
        defer { kill(server, SIGTERM) }
        await tmux.screen(until: "watch connected") { $0.first?.contains("broker \(broker.url): connected") == true }

        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(AgentFixtures.exampleRulesPath)"),
                                     scenario: AgentFixtures.walkUpAndStay, directory: dir)
        defer { agent.stop() }
        func distance(_ screen: [String]) -> Double? {
            screen.first { $0.hasPrefix("  phone-anna ") }.flatMap { $0.firstMatch(of: #/(\d+\.\d\d) m /#) }.flatMap { Double($0.1) }
        }
        func filled(_ screen: [String]) -> Int {
            screen.first { $0.hasPrefix("  phone-anna ") }.map { $0.filter { "█▓".contains($0) }.count } ?? 0
        }
        // A peer row with a distance and its bar, with the example rules' distances marked on it,
        // while she stands 12 m off.
        let peerRow = #/^  phone-anna   ranging     +\d+\.\d\d m  [█▏▎▍▌▋▊▉▓]+[ │]* +\d/#
        let far = await tmux.screen(until: "phone-anna's row with a distance of 5 m or more", timeout: 60) {
            $0.contains { $0.contains(peerRow) } && (distance($0) ?? 0) >= 5
        }
        // Far off, her bar fills the scale (the farthest peer's distance, at least 5 m); once she
        // is within 1.5 m it is at most 1.5 m of 5.
        let nearest = await tmux.screen(until: "phone-anna within 1.5 m", timeout: 60) { distance($0).map { $0 < 1.5 } ?? false }
        #expect(filled(nearest) < filled(far), "the bar moved with the distance:\n\(far.joined(separator: "\n"))\n\(nearest.joined(separator: "\n"))")
        let screen = await tmux.screen(until: "an event", timeout: 60) { $0.contains { $0.contains(#/^\d\d:\d\d:\d\d gw  \S+  \S+/#) } }
        let shown = screen.joined(separator: "\n")
        #expect(screen.count >= 24, "\(shown)")
        #expect(screen[0].contains(#/^uwb2mqtt watch  \d\d:\d\d:\d\d UTC  broker \S+: connected$/#), "\(shown)")
        #expect(screen.contains { $0.contains(#/^gw  online  device ranging fw \S+  .*rules ok [0-9a-f]{8}$/#) }, "\(shown)")
        #expect(screen.contains { $0.contains(#/^  peer +link +distance  0 +\d+\.\d\d m +age  stage, zones, approaches$/#) }, "\(shown)")
        #expect(screen.contains { $0.hasPrefix("  tool-cart ") }, "\(shown)")
        #expect(screen.contains("latest events"), "\(shown)")
        #expect(screen.contains { $0.hasPrefix("  phone-anna ") && ($0.contains("│") || $0.contains("▓")) }, "the rules' distances on her bar: \(shown)")
        // The view is drawn, not printed: no line of the plain view's connection messages.
        #expect(!screen.contains { $0.contains(": connecting, following") }, "\(shown)")

        await tmux.run(["send-keys", "-t", "watch", "C-c"])
        let deadline = Date().addingTimeInterval(10)
        while await tmux.run(["has-session", "-t", "watch"]).status == .exited(0), Date() < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        #expect(await tmux.run(["has-session", "-t", "watch"]).status != .exited(0), "watch still running after Ctrl-C")
    }

    /// With `--http`, the page's address leads the title line, where a narrow terminal cuts the
    /// broker's words before it (the alternate screen hides what was printed before the view).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func theTitleLineGivesThePagesAddress() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-tmux-http")
        let tmux = Tmux(dir: dir)
        let server = try await start(tmux, "exec '\(AgentProcess.executable)' watch --broker \(broker.url) --http 127.0.0.1:0 2>'\(dir.file("watch.err"))'",
                                     width: 60)
        defer { kill(server, SIGTERM) }
        let screen = await tmux.screen(until: "the page's address in the title") { $0.first?.contains(#/^uwb2mqtt watch  \d\d:\d\d:\d\d UTC  page http://127\.0\.0\.1:\d+/ /#) == true }
        #expect(screen.first.map { $0.count <= 60 } == true, "cut at the width: \(screen)")
    }

    /// The view follows the terminal's size: wider, the distance bar grows and lines cut at 80
    /// columns show whole; shorter, the screen still ends at its last row.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func aResizeRedrawsForTheNewSize() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-resize")
        let tmux = Tmux(dir: dir)
        let server = try await start(tmux, watchCommand(broker, dir))
        defer { kill(server, SIGTERM) }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(AgentFixtures.exampleRulesPath)"),
                                     scenario: AgentFixtures.walkBy, directory: dir)
        defer { agent.stop() }
        // At 80 columns the bar is 12 wide: `0`, the scale's end `N.NN m`, spaces between.
        let narrowTitles = #/^  peer +link +distance  0 +\d+\.\d\d m   age  stage, zones, approaches$/#
        var screen = await tmux.screen(until: "the peers' column titles at 80 columns", timeout: 60) { $0.contains { $0.contains(narrowTitles) } }
        let narrow = screen.first { $0.contains(narrowTitles) } ?? ""
        #expect(narrow.count == 80, "\(screen.joined(separator: "\n"))")

        await tmux.run(["resize-window", "-t", "watch", "-x", "120", "-y", "30"])
        // At 120 columns the bar is 12 + (120 - 80) / 2 = 32 wide, so the titles line is 20 columns longer.
        screen = await tmux.screen(until: "the wider titles") { $0.contains { $0.contains(#/^  peer +link +distance  0 {20,}\d+\.\d\d m   age/#) } }
        var shown = screen.joined(separator: "\n")
        // capture-pane ends every row with a newline: the last element after the split is empty.
        #expect(screen.dropLast().count == 30, "\(shown)")
        #expect(screen.contains { $0.hasPrefix("  peer ") && $0.count == 100 }, "\(shown)")
        // No line is cut at the old width any more, none is longer than the new one.
        #expect(!screen.contains { $0.count == 80 && $0.hasSuffix("…") }, "\(shown)")
        #expect(screen.allSatisfy { $0.count <= 120 }, "\(shown)")

        await tmux.run(["resize-window", "-t", "watch", "-x", "60", "-y", "12"])
        screen = await tmux.screen(until: "the view cut to 60 columns") { rows in
            rows.contains { $0.hasPrefix("  peer ") && $0.count == 60 && $0.hasSuffix("…") }
        }
        shown = screen.joined(separator: "\n")
        #expect(screen.dropLast().count == 12 && screen.allSatisfy { $0.count <= 60 }, "\(shown)")
        #expect(screen[0].hasPrefix("uwb2mqtt watch  "), "\(shown)")
    }

    /// Killed with SIGTERM (as systemd or `kill` would), watch leaves the alternate screen and
    /// shows the cursor again: the shell's screen is back as it was, with what was typed before.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func sigtermGivesTheTerminalBack() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-sigterm")
        let tmux = Tmux(dir: dir)
        let server = try await start(tmux, "env PS1='$ ' /bin/sh")
        defer { kill(server, SIGTERM) }
        let watchPID = try await startWatchFromTheShell(tmux, broker, dir)
        defer { kill(watchPID, SIGKILL) }
        #expect(await tmux.run(["display-message", "-p", "-t", "watch", "#{alternate_on} #{cursor_flag}"]).output == "1 0\n")
        kill(watchPID, SIGTERM)

        // The echo's output line, which reads `$ before-watch` when the shell printed its first
        // prompt after taking the typed line (a slow start): the command line itself ends otherwise.
        let screen = await tmux.screen(until: "the shell's screen") { $0.contains { $0.hasSuffix("before-watch") } }
        let shown = screen.joined(separator: "\n")
        #expect(!screen.contains { $0.hasPrefix("uwb2mqtt watch") }, "\(shown)")
        // The prompt is back, after the command line and its echo.
        await tmux.screen(until: "the prompt after watch") { rows in
            let used = rows.filter { !$0.isEmpty }
            return used.count >= 3 && used.last == "$"
        }
        #expect(await tmux.run(["display-message", "-p", "-t", "watch", "#{alternate_on} #{cursor_flag}"]).output == "0 1\n")
    }

    /// `--fuse-config`: three simulated gateways with positions, `uwb2mqtt fuse` placing the tag,
    /// and the map with the gateways, the tag with its accuracy and the zone.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func theSiteMapShowsGatewaysTheTagAndTheZone() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-site")
        var agents: [AgentProcess] = []
        defer { for agent in agents { agent.stop() } }
        // Three gateways are enough with the fuse's tag_height.
        for (id, x, y) in SiteEndToEndTests.gateways.prefix(3) {
            agents.append(try AgentProcess(config: SiteEndToEndTests().agentConfig(id, x, y, url: broker.url, spool: dir.file("spool-\(id)")),
                                           scenario: SiteEndToEndTests.scenario, directory: dir, name: id))
        }
        let fusePath = try dir.write("fuse.yaml", fuseConfig(url: broker.url, checkoutPolygon: "[[0, 0], [2.5, 0], [2.5, 2], [0, 2]]"))
        let fuse = try ChildProcess(executable: AgentProcess.executable, arguments: ["fuse", "--config", fusePath],
                                    stdoutPath: dir.file("fuse.out"), stderrPath: dir.file("fuse.err"))
        defer { fuse.terminate() }
        let tmux = Tmux(dir: dir)
        let server = try await start(tmux, "exec '\(AgentProcess.executable)' watch --fuse-config '\(fusePath)' 2>'\(dir.file("watch.err"))'",
                                     width: 100, height: 40)
        defer { kill(server, SIGTERM) }

        // Centimetres below a metre of accuracy, else metres with one decimal.
        let legend = #/● cart  -?\d+\.\d\d, -?\d+\.\d\d m  ±(\d+cm|\d+\.\dm)/#
        let screen = await tmux.screen(until: "the map with the tag placed", timeout: 60) { rows in
            rows.contains { $0.contains(legend) } && rows.contains { $0.contains("fuse online") }
                && ["gw-a", "gw-b", "gw-c"].allSatisfy { id in rows.contains { $0.contains("◆" + id) || $0.contains(id + "◆") } }
        }
        let shown = screen.joined(separator: "\n")
        #expect(screen.contains { $0.hasPrefix("┌─ lobby ─") }, "\(shown)")
        #expect(screen.contains { $0.contains("│") && $0.contains("●") && $0.contains(#/cart ±(\d+cm|\d+\.\dm)/#) }, "\(shown)")
        // The zone dotted, with its name inside its corner — unless the tag, walking through that
        // corner, covers the name with its own label (the tag's label wins).
        #expect(screen.contains { $0.contains("·········") }, "\(shown)")
        #expect(screen.contains { $0.contains("·checkout") || ($0.contains("·c") && $0.contains("cart ±")) }, "\(shown)")
        #expect(screen.contains { $0.contains(#/site lobby  fuse online/#) }, "\(shown)")
        #expect(screen.contains { $0.contains(#/1 column = \d+\.\d\d m, 1 row = \d+\.\d\d m, north up/#) }, "\(shown)")
        // The gateways' own rows are still there under the map.
        #expect(screen.contains { $0.hasPrefix("gw-a  online  device ranging") }, "\(shown)")
    }

    /// Wild numbers from another client — a gateway standing at 1e308, a tag at -1e308, an
    /// accuracy of 1e5 m on a site of a few metres — are unreadable lines, and the map goes on
    /// drawing what is honest (it trapped converting such a coordinate to a cell).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func wildNumbersOnTheSiteAreLinesAndTheMapGoesOn() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-wild")
        func publish(_ topic: String, _ message: String) async throws {
            try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/" + topic, message: message, retain: true)
        }
        for (id, x, y) in [("gw-a", 0, 0), ("gw-b", 6, 0), ("gw-c", 6, 4)] {
            try await publish("\(id)/status", #"{"state": "online", "ts": "2026-11-29T12:00:00.000Z", "version": "0.1.0", "position": {"x": \#(x), "y": \#(y), "z": 2.5}}"#)
        }
        try await publish("gw-x/status", #"{"state": "online", "ts": "2026-11-29T12:00:00.000Z", "version": "0.1.0", "position": {"x": 1e308, "y": -1e308, "z": 2.5}}"#)
        try await publish("site/lobby/status", #"{"state": "online", "ts": "2026-11-29T12:00:01.000Z", "version": "0.1.0", "instance": "5f3a", "zones": [{"name": "far", "polygon": [[0, 0], [1e308, 0], [1e308, 1e308]]}]}"#)
        try await publish("site/lobby/peer/cart/state", #"{"ts": "2026-11-29T12:03:04.000Z", "peer": "cart", "position": {"x": 4.9, "y": 2.3, "z": 1.0, "accuracy_m": 0.05}, "zones": [], "gateways_in_range": 3}"#)
        try await publish("site/lobby/peer/ghost/state", #"{"ts": "2026-11-29T12:03:04.000Z", "peer": "ghost", "position": {"x": -1e308, "y": 1e308, "z": 1.0, "accuracy_m": 0.05}, "zones": [], "gateways_in_range": 3}"#)
        try await publish("site/lobby/peer/blur/state", #"{"ts": "2026-11-29T12:03:04.000Z", "peer": "blur", "position": {"x": 3, "y": 2, "z": 1.0, "accuracy_m": 100000}, "zones": [], "gateways_in_range": 3}"#)

        let tmux = Tmux(dir: dir)
        let server = try await start(tmux, "exec '\(AgentProcess.executable)' watch --broker \(broker.url) --site lobby 2>'\(dir.file("watch.err"))'",
                                     width: 100, height: 40)
        defer { kill(server, SIGTERM) }
        let screen = await tmux.screen(until: "the map with the honest tag and the notes", timeout: 30) { rows in
            rows.contains { $0.contains(#/● cart  4\.90, 2\.30 m/#) } && rows.contains { $0.contains("unreadable") && $0.contains("position.x") }
        }
        let shown = screen.joined(separator: "\n")
        #expect(screen.contains { $0.hasPrefix("┌─ lobby ─") }, "\(shown)")
        #expect(screen.contains { $0.contains(#/unreadable.*status: "position\.x" is outside -100000…100000 m/#) }, "\(shown)")
        #expect(!screen.contains { $0.contains("ghost  ") && $0.contains(" m  ±") }, "the tag at -1e308 is not placed: \(shown)")
        #expect(await tmux.run(["has-session", "-t", "watch"]).status == .exited(0), "watch is gone: \(shown)")
        let errors = (try? String(contentsOfFile: dir.file("watch.err"), encoding: .utf8)) ?? ""
        #expect(!errors.contains("Fatal error"), "\(errors)")
    }

    /// Garbage from a gateway is a line on screen under that gateway's header, and the view goes on.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func anUnreadableMessageIsALineOnScreen() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-garbage")
        let tmux = Tmux(dir: dir)
        // 100 columns: the newest problem's line is whole.
        let server = try await start(tmux, watchCommand(broker, dir), width: 100)
        defer { kill(server, SIGTERM) }
        await tmux.screen(until: "watch connected") { $0.first?.contains("broker \(broker.url): connected") == true }
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/lobby/device", message: "{not json")
        var screen = await tmux.screen(until: "the malformed device message") { $0.contains { $0.hasPrefix("  ! unreadable: ") } }
        #expect(screen.contains { $0.contains(#/^  ! unreadable: \d\d:\d\d:\d\d device: not a JSON object: \{not json$/#) },
                "\(screen.joined(separator: "\n"))")
        #expect(screen.contains("lobby  status ?  device ?  rules ?"), "\(screen.joined(separator: "\n"))")
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/lobby/peer/phone-anna/event",
                                            message: #"{"ts": "2026-11-29T12:03:04.000Z", "peer": "phone-anna", "type": "teleported"}"#)
        screen = await tmux.screen(until: "the unknown event type") { $0.contains { $0.contains("unreadable (2") } }
        #expect(screen.contains(#"  ! unreadable (2, the newest): 12:03:04 peer/phone-anna/event: unknown event type "teleported""#),
                "\(screen.joined(separator: "\n"))")
        #expect(await tmux.run(["has-session", "-t", "watch"]).status == .exited(0), "watch is gone")
    }

    /// Keys: on a terminal too short for the gateway's rows, ↓ and End scroll them under the
    /// title, Home back; `q` quits and gives the shell back with echo and line editing on
    /// (a command typed afterwards shows and runs).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func keysScrollAndQGivesTheShellBack() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-keys")
        let tmux = Tmux(dir: dir)
        // Six rows: the title, four of the gateway's lines (a blank, its header, the column titles,
        // phone-anna and tool-cart are five) and the line that says what is below.
        let server = try await start(tmux, "env PS1='$ ' /bin/sh", height: 6)
        defer { kill(server, SIGTERM) }
        let watchPID = try await startWatchFromTheShell(tmux, broker, dir)
        defer { kill(watchPID, SIGKILL) }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(AgentFixtures.exampleRulesPath)"),
                                     scenario: AgentFixtures.walkBy, directory: dir)
        defer { agent.stop() }

        var screen = await tmux.screen(until: "the gateway's lines cut with a line saying more are below", timeout: 60) { rows in
            rows.count > 5 && rows[1] == "" && rows[2].hasPrefix("gw  online") && rows[5].contains(#/^… \d+ lines? more below: ↓ PgDn to scroll$/#)
        }
        await tmux.run(["send-keys", "-t", "watch", "Down"])
        screen = await tmux.screen(until: "one line scrolled") { rows in
            rows.count > 5 && rows[1].hasPrefix("gw  online") && rows[5].contains(#/, 1 above: ↑ PgUp ↓ PgDn to scroll$/#)
        }
        #expect(screen[0].hasPrefix("uwb2mqtt watch  "), "the title stays: \(screen.joined(separator: "\n"))")
        await tmux.run(["send-keys", "-t", "watch", "End"])
        screen = await tmux.screen(until: "the end") { rows in rows.count > 5 && rows[5].contains(#/^… \d+ lines above: ↑ PgUp to scroll$/#) }
        #expect(screen.contains { $0.hasPrefix("✗ tool-cart") || $0.hasPrefix("  tool-cart") || $0.hasPrefix("  ranking") }, "\(screen.joined(separator: "\n"))")
        await tmux.run(["send-keys", "-t", "watch", "Home"])
        await tmux.screen(until: "the top again") { rows in rows.count > 5 && rows[1] == "" && rows[2].hasPrefix("gw  online") }

        await tmux.run(["send-keys", "-t", "watch", "q"])
        await tmux.screen(until: "the shell's screen") { $0.contains { $0.hasSuffix("before-watch") } }
        #expect(await tmux.run(["display-message", "-p", "-t", "watch", "#{alternate_on} #{cursor_flag}"]).output == "0 1\n")
        // Echo and line mode are back: the command shows as typed, and runs on Enter.
        await tmux.run(["send-keys", "-t", "watch", "echo typed-after", "Enter"])
        screen = await tmux.screen(until: "the command and its output") { rows in
            rows.contains("$ echo typed-after") && rows.contains("typed-after")
        }
        #expect(kill(watchPID, 0) != 0, "watch still running after q")
    }
}
