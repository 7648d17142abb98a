import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The `state` of every distinct `device` message received, consecutive repeats folded (the
/// device payload is published again when the device identifies itself, in the same state).
/// Identical payloads are counted once: QoS 1 is at least once, and a message whose PUBACK was
/// lost in an outage is delivered again after it.
func deviceStates(_ subscriber: MQTTTestSubscriber) -> [String] {
    var states: [String] = []
    var seen: Set<String> = []
    for message in subscriber.messages where message.topic.hasSuffix("/device") && seen.insert(message.payload).inserted {
        let state = json(message.payload)["state"] as? String ?? "?"
        if states.last != state { states.append(state) }
    }
    return states
}

/// The agent end to end: the real executable on the simulator (a real pseudo-terminal), a real
/// mosquitto on a loopback port, and an independent subscriber (mosquitto_sub).
@Suite(.serialized, .timeLimit(.minutes(3))) struct AgentTests {
    @Test func retainedStatusAndLastWillWhenKilled() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "agent-will", topics: ["uwb2mqtt/#"])
        defer { subscriber.stop(); broker.stop() }
        // The will at once (`will_delay` is MQTT5WillDelayTests' subject).
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), mqttExtra: "  will_delay: 0s"),
                                     directory: dir)
        defer { agent.stop() }

        let online = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/status", where: { json($0.payload)["state"] as? String == "online" })
        let status = json(online.payload)
        #expect(status["version"] as? String == "0.1.0")
        #expect(status["ts"] as? String != nil)
        #expect(status.keys.sorted() == ["heading_deg", "position", "ranging_interval_ms", "state", "ts", "version"])
        #expect(status["ranging_interval_ms"] as? Int == 100, "the test config's device.ranging_interval")
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/phone-anna/range")

        agent.process.kill(SIGKILL)
        let will = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/status", where: { json($0.payload)["state"] as? String == "offline" })
        #expect(will.payload == #"{"state":"offline"}"#)
        // A late joiner sees the retained offline.
        let late = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/status"])
        defer { late.stop() }
        let retained = try await late.waitForMessage(topic: "uwb2mqtt/gw/status")
        #expect(retained.retained && retained.payload == #"{"state":"offline"}"#)
    }

    @Test func cleanShutdownPublishesOfflineWithTimestamp() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "agent-clean", topics: ["uwb2mqtt/gw/status"])
        defer { subscriber.stop(); broker.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool")), directory: dir)
        defer { agent.stop() }
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/status", where: { $0.payload.contains("online") })
        // The test config keeps the profile's demo key: one warning at start, which names it.
        await eventually("the demo-key warning") { agent.log.contains("device.session_key_info is a well-known demo key (08 07 01 02 03 04 05 06") }
        #expect(agent.log.components(separatedBy: "well-known demo key").count == 2)
        #expect(agent.process.terminate() == .exited(0))
        let offline = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/status", where: { $0.payload.contains("offline") })
        #expect(json(offline.payload)["ts"] as? String != nil)
    }

    @Test func theV1TopicTree() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "agent-tree", topics: ["#"])
        defer { subscriber.stop(); broker.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool")), directory: dir)
        defer { agent.stop() }

        let device = try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/device", where: { json($0.payload)["state"] as? String == "ranging" })
        let d = json(device.payload)
        #expect(d.keys.sorted() == ["capabilities", "error", "firmware", "mac_version", "phy_version", "port", "state", "ts", "uci_version"])
        #expect(d["uci_version"] as? String == "2.0.0")
        #expect((d["capabilities"] as? [String: Any])?["aoa"] as? Bool == false)

        let ranges = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 5)
        let r = json(ranges.last!.payload)
        #expect(r.keys.sorted() == ["azimuth_deg", "azimuth_fom", "distance_m", "elevation_deg", "elevation_fom", "mac",
                                    "nlos", "peer", "raw_distance_m", "rssi_dbm", "seq", "session", "status", "ts"])
        #expect(r["peer"] as? String == "tool-cart")
        #expect(r["mac"] as? String == "0x0002")
        #expect(r["session"] as? Int == 42)
        #expect(r["status"] as? String == "ok")
        #expect(r["distance_m"] is Double)
        // A DWM3001C has no angle of arrival: never an invented one.
        #expect(r["azimuth_deg"] is NSNull && r["elevation_deg"] is NSNull && r["azimuth_fom"] is NSNull)
        #expect(!ranges.contains { $0.retained })

        let metrics = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/metrics").payload)
        #expect(metrics.keys.sorted() == ["broker_reconnects", "device_reconnects", "dropped", "events", "events_dropped", "frames_invalid", "frames_rx",
                                          "measurements", "phone_reports", "phone_reports_dropped", "publish_queue", "publishes_refused", "requests_dropped",
                                          "spooled", "ts", "uptime_s"])
        // A late joiner gets the retained device and status.
        let late = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/device", "uwb2mqtt/gw/status"])
        defer { late.stop() }
        #expect(try await late.waitForMessage(topic: "uwb2mqtt/gw/device").retained)
        #expect(try await late.waitForMessage(topic: "uwb2mqtt/gw/status").retained)
        // Nothing outside the gateway's tree.
        #expect(subscriber.messages.allSatisfy { $0.topic.hasPrefix("uwb2mqtt/gw/") }, "\(subscriber.messages.map(\.topic))")
    }

    @Test func requestsAndResponses() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "agent-requests", topics: ["uwb2mqtt/gw/response/#", "uwb2mqtt/gw/device"])
        defer { subscriber.stop(); broker.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool")), directory: dir)
        defer { agent.stop() }
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/device", where: { $0.payload.contains("\"ranging\"") })

        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/ping", message: #"{"id": "abc-1"}"#)
        let pong = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping").payload)
        #expect(pong["id"] as? String == "abc-1" && pong["ok"] as? Bool == true && pong["data"] != nil)

        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/frobnicate", message: #"{"id": 7}"#)
        let unknown = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/frobnicate").payload)
        #expect(unknown["ok"] as? Bool == false && unknown["id"] as? Int == 7)
        #expect((unknown["error"] as? String)?.contains("unknown request") == true)

        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/state", message: "this is not json")
        let bad = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/state").payload)
        #expect(bad["ok"] as? Bool == false && bad["error"] as? String == "the request body is not a JSON object (expected a value at byte 0)")

        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/state", message: "")
        let state = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/response/state", count: 2)
        let data = json(state[1].payload)["data"] as? [String: Any]
        #expect((data?["peers"] as? [[String: Any]])?.count == 2)

        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/session_stop", message: #"{"id": "s"}"#)
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/device", where: { $0.payload.contains("\"idle\"") })
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/session_start", message: "")
        await eventually("ranging after idle") { deviceStates(subscriber).suffix(2) == ["idle", "ranging"] }

        // A request name with characters outside [a-z0-9_-] answers on a sanitized topic.
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/Ping!", message: "")
        let sanitized = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping_").payload)
        #expect(sanitized["ok"] as? Bool == false)
        #expect(agent.process.isRunning)
    }

    /// A broker of MQTT 3.1.1 only (mosquitto behind a front that refuses protocol level 5, as
    /// older brokers do): the agent asks for 5, is refused once, says so once, and speaks 3.1.1
    /// from then on — online, ranging, answering requests.
    @Test func aBrokerWithoutMQTT5GetsMQTT311() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "agent-mqtt311", topics: ["uwb2mqtt/gw/#"])
        defer { subscriber.stop(); broker.stop() }
        let proxy = try TCPOutageProxy(to: broker.port, refusingMQTT5: true)
        defer { proxy.stop() }
        let agent = try AgentProcess(config: testConfig(url: proxy.url, spool: dir.file("spool")), directory: dir)
        defer { agent.stop() }
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/status", where: { $0.payload.contains("online") }, timeout: .seconds(20))
        _ = try await subscriber.waitForMessages(topic: "uwb2mqtt/gw/peer/tool-cart/range", count: 5, timeout: .seconds(20))
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/gw/request/ping", message: #"{"id": 1}"#)
        #expect(json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/response/ping").payload)["ok"] as? Bool == true)
        #expect(proxy.refusedMQTT5 == 1)
        #expect(agent.logLines.filter { $0.contains("does not speak MQTT 5") && $0.contains("connecting with MQTT 3.1.1") }.count == 1, "\(agent.logLines)")
    }

    @Test func aBrokerOutageLosesNoRetainedStateAndKeepsItsOrder() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "agent-outage", topics: ["uwb2mqtt/gw/#"])
        defer { subscriber.stop(); broker.stop() }
        let proxy = try TCPOutageProxy(to: broker.port)
        defer { proxy.stop() }
        // The device resets itself 5 s in: while the broker is unreachable, the device state goes
        // ranging → initializing → ranging, and the agent must journal those changes.
        let scenario = """
        seed: 3
        device: {ranging_interval: 0.1}
        peers:
          - {address: 0x0001, name: phone-anna, path: [{t: 0, distance: 2}]}
          - {address: 0x0002, name: tool-cart, path: [{t: 0, distance: 3}]}
        faults:
          - {at: 5, kind: device_reset}
        """
        // The will at once when the proxy cuts the connection: the outage is to be seen.
        let agent = try AgentProcess(config: testConfig(url: proxy.url, spool: dir.file("spool"), mqttExtra: "  will_delay: 0s"),
                                     scenario: scenario, directory: dir)
        defer { agent.stop() }
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/device", where: { $0.payload.contains("\"ranging\"") })
        proxy.cut()
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/status", where: { $0.payload == #"{"state":"offline"}"# })
        await eventually("the device reset to be journaled") { agent.log.contains("the device reset itself") && agent.log.contains("ranging with") && agent.log.components(separatedBy: "device ranging").count >= 3 }
        proxy.restore()
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/status", where: { $0.payload.contains("online") && $0.payload.contains("ts") && subscriber.messages.contains { $0.payload == #"{"state":"offline"}"# } })
        // Before the outage: opening, initializing, ranging. Journaled during it, delivered after:
        // initializing, ranging — in order, none lost.
        await eventually("the journaled device states") { deviceStates(subscriber) == ["opening", "initializing", "ranging", "initializing", "ranging"] }
        var seen: Set<String> = []
        let stamps = subscriber.messages.filter { $0.topic == "uwb2mqtt/gw/device" && seen.insert($0.payload).inserted }
            .compactMap { json($0.payload)["ts"] as? String }
        #expect(stamps == stamps.sorted())
        // Live data flows again.
        let before = subscriber.messages.filter { $0.topic.hasSuffix("/range") }.count
        await eventually("range messages after the outage") { subscriber.messages.filter { $0.topic.hasSuffix("/range") }.count > before + 5 }
    }

    @Test func theJournalIsDeliveredAfterAnAgentRestart() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let proxy = try TCPOutageProxy(to: broker.port)
        defer { proxy.stop() }
        proxy.cut()
        let dir = try TemporaryDirectory(prefix: "agent-restart")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/device"])
        defer { subscriber.stop() }
        let config = testConfig(url: proxy.url, spool: dir.file("spool"))
        // First run: never reaches the broker; its device states go to the journal.
        let first = try AgentProcess(config: config, directory: dir, name: "first")
        await eventually("the first run to range") { first.log.contains("ranging with") }
        #expect(first.process.terminate() == .exited(0))
        proxy.restore()
        // Second run: delivers what the first journaled, in order, then its own.
        let second = try AgentProcess(config: config, directory: dir, name: "second")
        defer { second.stop() }
        // The first run stopped its session on SIGTERM: `idle`.
        await eventually("both runs' device states, in order") {
            deviceStates(subscriber) == ["opening", "initializing", "ranging", "idle", "opening", "initializing", "ranging"]
        }
        #expect(second.log.contains("journaled messages wait for the broker"))
    }

    @Test func tlsWithAPasswordFile() async throws {
        let ca = try await TestCA.create()
        let auth = try TemporaryDirectory(prefix: "agent-auth")
        let passwords = try await MosquittoPasswordFile.create(in: auth, username: "gateway", password: "s3cret pass")
        let broker = try await MosquittoBroker.start(.init(passwordFile: passwords, tls: .init(caFile: ca.caFile, certFile: ca.serverCertFile, keyFile: ca.serverKeyFile)))
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "agent-tls")
        let passwordPath = try dir.write("password", "s3cret pass\n")
        chmod(passwordPath, 0o600)
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/status"],
                                                            extraArguments: ["-u", "gateway", "-P", "s3cret pass"])
        defer { subscriber.stop() }
        let config = testConfig(url: broker.tlsURL!, spool: dir.file("spool"), mqttExtra: """
          username: gateway
          password_file: \(passwordPath)
          ca_file: \(ca.caFile)
        """)
        let agent = try AgentProcess(config: config, directory: dir)
        defer { agent.stop() }
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/status", where: { $0.payload.contains("online") }, timeout: .seconds(20))
        #expect(!agent.log.contains("s3cret"))
    }

    @Test func aWrongPasswordIsReportedAndTheAgentKeepsRunning() async throws {
        let auth = try TemporaryDirectory(prefix: "agent-badauth")
        let passwords = try await MosquittoPasswordFile.create(in: auth, username: "gateway", password: "right")
        let broker = try await MosquittoBroker.start(.init(passwordFile: passwords))
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "agent-badpass")
        let passwordPath = try dir.write("password", "wrong-secret")
        chmod(passwordPath, 0o644)
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), mqttExtra: """
          username: gateway
          password_file: \(passwordPath)
        """), directory: dir)
        defer { agent.stop() }
        await eventually("a not-authorized log line") { agent.log.contains("refused the credentials") }
        #expect(agent.log.contains("readable by every user"))
        #expect(!agent.log.contains("wrong-secret"))
        #expect(agent.process.isRunning)
    }

    @Test func topicSegmentsFromUserDataAreSanitized() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "agent-safety", topics: ["#"])
        defer { subscriber.stop(); broker.stop() }
        let config = """
        gateway: {id: "Lobby/+#"}
        device:
          ranging_interval: 100ms
          peers:
            - {address: 0x0001, name: "Cart/#1"}
            - {address: 0x0002, name: "phone+anna"}
        mqtt: {url: "\(broker.url)", spool_dir: "\(dir.file("spool"))", home_assistant: true}
        """
        let agent = try AgentProcess(config: config, directory: dir)
        defer { agent.stop() }
        let range = try await subscriber.waitForMessage(topic: "uwb2mqtt/lobby___/peer/cart__1/range")
        #expect(json(range.payload)["peer"] as? String == "Cart/#1")
        try await subscriber.waitForMessage(topic: "uwb2mqtt/lobby___/peer/phone_anna/range")
        try await MQTTTestPublisher.publish(broker: broker, topic: "uwb2mqtt/lobby___/request/..%2F..", message: "{}")
        try await subscriber.waitForMessage(topic: "uwb2mqtt/lobby___/response/___2f__")
        for message in subscriber.messages where !message.topic.contains("/request/") {
            #expect(message.topic.hasPrefix("uwb2mqtt/lobby___/") || message.topic.hasPrefix("homeassistant/"), "\(message.topic)")
        }
    }

    @Test func peersAddedToTheConfigOnSIGHUPRangeWithoutARestart() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "agent-peers", topics: ["uwb2mqtt/gw/peer/+/range"])
        defer { subscriber.stop(); broker.stop() }
        let scenario = """
        device: {ranging_interval: 0.1}
        peers:
          - {address: 0x0001, name: phone-anna, path: [{t: 0, distance: 2}]}
          - {address: 0x0002, name: tool-cart, path: [{t: 0, distance: 3}]}
          - {address: 0x0003, name: badge, path: [{t: 0, distance: 4}]}
        """
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool")), scenario: scenario, directory: dir)
        defer { agent.stop() }
        try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/tool-cart/range")
        let config = testConfig(url: broker.url, spool: dir.file("spool"))
            .replacingOccurrences(of: "    - {address: 0x0002, name: tool-cart}", with: "    - {address: 0x0002, name: tool-cart}\n    - {address: 0x0003, name: badge}")
        try config.write(toFile: dir.file("agent.yaml"), atomically: true, encoding: .utf8)
        agent.process.kill(SIGHUP)
        let badge = json(try await subscriber.waitForMessage(topic: "uwb2mqtt/gw/peer/badge/range").payload)
        #expect(badge["status"] as? String == "ok" && badge["mac"] as? String == "0x0003")
        #expect(agent.log.contains("peers updated without a restart"))
        #expect(!agent.log.contains("restarting the session"))
    }

    /// A peer removed by a reload leaves nothing retained: a client that subscribes afterwards gets
    /// neither its `state` nor its Home Assistant entity, while the remaining peer's are there.
    @Test func aPeerRemovedOnSIGHUPLeavesNoRetainedStateOrEntity() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "agent-removed", topics: ["uwb2mqtt/gw/peer/+/state", "homeassistant/#"])
        defer { subscriber.stop(); broker.stop() }
        let config = testConfig(url: broker.url, spool: dir.file("spool"), mqttExtra: "  home_assistant: true")
        let agent = try AgentProcess(config: config, directory: dir)
        defer { agent.stop() }
        let cartState = "uwb2mqtt/gw/peer/tool-cart/state"
        let cartEntity = "homeassistant/sensor/uwb2mqtt_gw/tool-cart_distance/config"
        try await subscriber.waitForMessage(topic: cartState, where: { json($0.payload)["link"] as? String == "ranging" })
        try await subscriber.waitForMessage(topic: cartEntity, where: { !$0.payload.isEmpty })

        try config.replacingOccurrences(of: "    - {address: 0x0002, name: tool-cart}\n", with: "")
            .write(toFile: dir.file("agent.yaml"), atomically: true, encoding: .utf8)
        agent.process.kill(SIGHUP)
        // Empty retained messages delete both on the broker.
        try await subscriber.waitForMessage(topic: cartState, where: { $0.payload.isEmpty })
        try await subscriber.waitForMessage(topic: cartEntity, where: { $0.payload.isEmpty })

        // A late subscriber: the broker queues every retained message for it when it subscribes,
        // so once a message published after that arrives, all retained ones have.
        let late = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/gw/peer/+/state", "homeassistant/#", "test/marker"])
        defer { late.stop() }
        try await MQTTTestPublisher.publish(broker: broker, topic: "test/marker", message: "after the retained ones")
        try await late.waitForMessage(topic: "test/marker")
        let retained = late.messages.filter(\.retained)
        #expect(retained.contains { $0.topic == "uwb2mqtt/gw/peer/phone-anna/state" })
        #expect(retained.contains { $0.topic == "homeassistant/sensor/uwb2mqtt_gw/phone-anna_distance/config" })
        // Nothing of the cart, under its name or its address.
        #expect(!retained.contains { $0.topic.contains("tool-cart") || $0.topic.contains("0x0002") }, "\(retained)")
        #expect(agent.process.isRunning)
    }

    @Test func homeAssistantDiscovery() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        // A retained config left by a peer that is no longer configured.
        try await MQTTTestPublisher.publish(broker: broker, topic: "homeassistant/sensor/uwb2mqtt_gw/old-tag_distance/config",
                                            message: #"{"name": "old"}"#, retain: true)
        let dir = try TemporaryDirectory(prefix: "agent-ha")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["homeassistant/#"])
        defer { subscriber.stop() }
        let agent = try AgentProcess(config: testConfig(url: broker.url, spool: dir.file("spool"), mqttExtra: "  home_assistant: true"), directory: dir)
        defer { agent.stop() }
        let topic = "homeassistant/sensor/uwb2mqtt_gw/phone-anna_distance/config"
        let config = json(try await subscriber.waitForMessage(topic: topic).payload)
        #expect(config["state_topic"] as? String == "uwb2mqtt/gw/peer/phone-anna/range")
        #expect(config["availability_topic"] as? String == "uwb2mqtt/gw/status")
        #expect(config["unit_of_measurement"] as? String == "m")
        #expect((config["device"] as? [String: Any])?["identifiers"] as? [String] == ["uwb2mqtt_gw"])
        // The stale entity is removed with an empty retained payload.
        try await subscriber.waitForMessage(topic: "homeassistant/sensor/uwb2mqtt_gw/old-tag_distance/config", where: { $0.payload.isEmpty })
        // Home Assistant restarting gets the configs again.
        try await MQTTTestPublisher.publish(broker: broker, topic: "homeassistant/status", message: "online")
        _ = try await subscriber.waitForMessages(topic: topic, count: 2)
    }
}
