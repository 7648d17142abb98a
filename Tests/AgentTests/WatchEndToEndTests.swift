import Foundation
import Testing
import TestSupport

/// `uwb2mqtt watch --plain` as a person on site runs it: the real executable against a real
/// mosquitto, with the agent on the simulator, read as the lines it prints.
@Suite(.serialized, .timeLimit(.minutes(3))) struct WatchEndToEndTests {
    /// `uwb2mqtt watch ARGUMENTS`, its stdout and stderr in `dir`.
    func startWatch(_ arguments: [String], in dir: TemporaryDirectory) throws -> ChildProcess {
        try ChildProcess(executable: AgentProcess.executable, arguments: ["watch"] + arguments,
                         stdoutPath: dir.file("watch.out"), stderrPath: dir.file("watch.err"))
    }

    func lines(_ watch: ChildProcess) -> [String] {
        ((try? String(contentsOfFile: watch.stdoutPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func theDeviceRangingAndAZoneEnterReadInWords() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-walkby")
        let watch = try startWatch(["--broker", broker.url, "--plain"], in: dir)
        defer { _ = watch.terminate() }
        // Connected before the agent starts, so that the live events reach it.
        await eventually("watch connected") { lines(watch).contains { $0.hasSuffix("broker \(broker.url): connected") } }

        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), extra: "rules: \(AgentFixtures.exampleRulesPath)"),
                                     scenario: AgentFixtures.walkBy, directory: dir)
        defer { agent.stop() }
        await eventually("the device ranging", timeout: 30) {
            lines(watch).contains { $0.contains(#/^\d\d:\d\d:\d\d gw  device ranging \(firmware \S+\)$/#) }
        }
        await eventually("a zone_enter of phone-anna", timeout: 60) {
            lines(watch).contains { $0.contains(#/^\d\d:\d\d:\d\d gw  phone-anna  zone_enter counter at \d+\.\d\d m after \d+ ms dwell \(threshold \d+(\.\d+)? m\)$/#) }
        }
        let output = lines(watch)
        #expect(output.contains { $0.contains(#/ gw  gateway online \(uwb2mqtt \S+\)$/#) })
        #expect(output.contains { $0.contains(#/ gw  rules ok \(sha256 [0-9a-f]{12}\)$/#) })
        #expect(output.contains { $0.contains(#/ gw  tool-cart  (connecting|ranging at \d+\.\d\d m)$/#) })
        #expect(output.contains { $0.contains(#/ gw  phone-anna  stage_change none → locate at \d+\.\d\d m$/#) })
        // Ranges and feedback move numbers; they are not lines.
        #expect(!output.contains { $0.contains("/range") || $0.contains("/feedback") })
        #expect(agent.process.terminate() == .exited(0))
        await eventually("the gateway going offline") { lines(watch).contains { $0.contains(#/ gw  gateway offline \(uwb2mqtt \S+\)$/#) } }
        #expect(watch.terminate() == .exited(0))
    }

    @Test func anUnreachableBrokerIsOneLineAndWatchKeepsTrying() async throws {
        let dir = try TemporaryDirectory(prefix: "watch-unreachable")
        let port = try freeLoopbackPort()
        let watch = try startWatch(["--broker", "mqtt://127.0.0.1:\(port)", "--plain"], in: dir)
        defer { _ = watch.terminate() }
        await eventually("the reason it cannot connect") {
            lines(watch).contains { $0.hasSuffix("broker mqtt://127.0.0.1:\(port): MQTT connection refused: cannot connect to mqtt://127.0.0.1:\(port): Connection refused; retrying with back-off") }
        }
        #expect(watch.isRunning)
        #expect(watch.terminate() == .exited(0))
    }

    /// Wrong credentials from the config's `mqtt` section: one line that says so (never the
    /// password), and watch keeps trying.
    @Test func wrongCredentialsAreOneLineAndWatchKeepsTrying() async throws {
        let auth = try TemporaryDirectory(prefix: "watch-badauth")
        let passwords = try await MosquittoPasswordFile.create(in: auth, username: "viewer", password: "right")
        let broker = try await MosquittoBroker.start(.init(passwordFile: passwords))
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-badpass")
        let passwordPath = try dir.write("password", "wrong-secret")
        let config = try dir.write("config.yaml", """
            device: {peers: [{address: 0x0001, name: tag}]}
            mqtt: {url: \(broker.url), username: viewer, password_file: \(passwordPath)}
            """)
        let watch = try startWatch(["--config", config, "--plain"], in: dir)
        defer { _ = watch.terminate() }
        await eventually("the refused credentials") { lines(watch).contains { $0.contains("broker \(broker.url):") && $0.contains("refused the credentials") } }
        let output = lines(watch) + [(try? String(contentsOfFile: watch.stderrPath, encoding: .utf8)) ?? ""]
        #expect(!output.contains { $0.contains("wrong-secret") })
        #expect(lines(watch).filter { $0.contains("refused the credentials") }.count == 1, "said once, not per retry: \(lines(watch))")
        #expect(watch.isRunning)
        #expect(watch.terminate() == .exited(0))
    }

    @Test func aMalformedPayloadIsALineNamingItsTopic() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-malformed")
        let watch = try startWatch(["--broker", broker.url, "--gateway", "lobby"], in: dir)
        defer { _ = watch.terminate() }
        await eventually("watch connected") { lines(watch).contains { $0.hasSuffix("broker \(broker.url): connected") } }
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/kitchen/device", message: "{not json")
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/lobby/device", message: "{not json")
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/lobby/peer/phone-anna/event",
                                            message: #"{"ts": "2026-11-29T12:03:04.000Z", "peer": "phone-anna", "type": "teleported"}"#)
        await eventually("the unknown event type") { lines(watch).contains { $0.hasSuffix(#"lobby  peer/phone-anna/event: unknown event type "teleported""#) } }
        let output = lines(watch)
        #expect(output.contains { $0.contains(#/^\d\d:\d\d:\d\d lobby  device: not a JSON object: \{not json$/#) })
        // Only the gateway asked for.
        #expect(!output.contains { $0.contains("kitchen") })
        #expect(watch.isRunning)
    }

    /// `--plain --fuse-config`: the fuse's site status and its events are lines named `site/<site>`,
    /// with the broker taken from the fuse's config; another site's messages are not.
    @Test func aSitesStatusAndEventsReadAsLines() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "watch-site-plain")
        let fuseConfig = try dir.write("fuse.yaml", """
            site: lobby
            mqtt: {url: "\(broker.url)", base_topic: uwb2mqtt}
            zones:
              - {name: checkout, polygon: [[0, 0], [2.5, 0], [2.5, 2], [0, 2]]}
            """)
        let watch = try startWatch(["--fuse-config", fuseConfig, "--plain"], in: dir)
        defer { _ = watch.terminate() }
        await eventually("watch connected") { lines(watch).contains { $0.hasSuffix("broker \(broker.url): connected") } }
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/site/hall/status", message: #"{"state": "online", "ts": "2026-11-29T12:00:00.000Z"}"#)
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/site/lobby/status", message: #"{"state": "online", "ts": "2026-11-29T12:00:01.000Z"}"#)
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/site/lobby/peer/cart/event",
                                            message: #"{"ts": "2026-11-29T12:03:04.000Z", "peer": "cart", "type": "zone_enter", "rule": "checkout", "from": "outside", "to": "inside", "distance_m": null, "reason": {"dwell_ms": 200}}"#)
        await eventually("the site's zone_enter") { lines(watch).contains("12:03:04 site/lobby  cart  zone_enter checkout after 200 ms dwell") }
        let output = lines(watch)
        #expect(output.contains("12:00:01 site/lobby  fuse online"), "\(output)")
        #expect(!output.contains { $0.contains("hall") }, "\(output)")
        #expect(watch.terminate() == .exited(0))
    }

    @Test func aSiteNameThatCannotBeATopicAndAnotherSitesConfigAreRefused() async throws {
        let dir = try TemporaryDirectory(prefix: "watch-site-bad")
        let slash = try startWatch(["--site", "a/b"], in: dir)
        defer { _ = slash.terminate() }
        #expect(await slash.waitForExit(timeout: .seconds(10)) == .exited(2))
        let fuseConfig = try dir.write("fuse.yaml", "site: lobby\n")
        let other = try ChildProcess(executable: AgentProcess.executable, arguments: ["watch", "--site", "hall", "--fuse-config", fuseConfig],
                                     stdoutPath: dir.file("other.out"), stderrPath: dir.file("other.err"))
        defer { _ = other.terminate() }
        #expect(await other.waitForExit(timeout: .seconds(10)) == .exited(1))
        let said = (try? String(contentsOfFile: other.stderrPath, encoding: .utf8)) ?? ""
        #expect(said == "uwb2mqtt: watch: --site hall but \(fuseConfig) is the configuration of site lobby\n", "\(said)")
    }
}
