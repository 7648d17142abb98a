import Foundation
import EventLoop
import MQTTClient
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `uwb2mqtt fuse` as a process against a real broker, fed gateway statuses and ranges by an
/// in-test MQTT client (the four-agent test with simulators is in SiteEndToEndTests).
@Suite(.serialized, .timeLimit(.minutes(2))) struct FuseTests {
    static let gateways: [(String, Double, Double)] = [("gw-a", 0, 0), ("gw-b", 6, 0), ("gw-c", 6, 6), ("gw-d", 0, 6)]

    func startFuse(_ broker: MosquittoBroker, _ dir: TemporaryDirectory, name: String, positionLostAfter: String = "2s") throws -> ChildProcess {
        let path = try dir.write("\(name).yaml", fuseConfig(url: broker.url, checkoutPolygon: "[[0, 0], [2, 0], [2, 1.5], [0, 1.5]]",
                                                            positionLostAfter: positionLostAfter))
        return try ChildProcess(executable: AgentProcess.executable, arguments: ["fuse", "--config", path],
                                stdoutPath: dir.file("\(name).out"), stderrPath: dir.file("\(name).err"))
    }

    /// Publishes the gateways' retained statuses and, every 100 ms, each gateway's range to a tag
    /// walking along `path(t)` (site frame, tag at 1 m height).
    func feed(_ client: Feeder, seconds: Double, path: (Double) -> (Double, Double)) async throws {
        for (id, x, y) in Self.gateways {
            let status = #"{"state": "online", "ts": "2026-11-29T00:00:00.000Z", "version": "0.1.0", "position": {"x": \#(x), "y": \#(y), "z": 2.5}, "heading_deg": 90}"#
            try client.publish(topic: "uwb2mqtt/\(id)/status", payload: status, qos: .atLeastOnce, retain: true)
        }
        // Stamped with the real time of sending, as an agent stamps ranges with their receive
        // time: fuse's timer runs on the wall clock, and a feeder that fell behind its schedule
        // on a loaded machine must not look like a tag that went silent. The walk goes by rounds,
        // not by the clock, so that a feeder stalled by the rest of the suite still walks every
        // step of the path (a stall of a second or two would skip the way through the zone).
        for round in 0..<Int(seconds * 10) {
            let now = Date().timeIntervalSince1970
            let (px, py) = path(Double(round) / 10)
            for (id, x, y) in Self.gateways {
                let distance = ((px - x) * (px - x) + (py - y) * (py - y) + 1.5 * 1.5).squareRoot()
                let payload = #"{"ts": "\#(rfc3339(now))", "peer": "cart", "mac": "0x0001", "session": 42, "seq": 1, "status": "ok", "distance_m": \#(distance), "raw_distance_m": \#(distance), "nlos": false}"#
                try client.publish(topic: "uwb2mqtt/\(id)/peer/cart/range", payload: payload, qos: .atMostOnce)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The fuse speaks MQTT 5 as the agent does: every message says it is JSON of schema version
    /// 1, positions expire (mqtt.message_expiry, 5 s by default), status and events do not.
    @Test func theFusesMessagesCarryTheContractsProperties() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.stop() }
        let dir = try TemporaryDirectory(prefix: "fuse-mqtt5")
        let subscriber = try await MQTTTestSubscriber.start(broker: broker, topics: ["uwb2mqtt/site/#"], mqtt5Properties: true)
        defer { subscriber.stop() }
        let fuse = try startFuse(broker, dir, name: "fuse")
        defer { fuse.terminate() }
        try await subscriber.waitForMessage(topic: "uwb2mqtt/site/lobby/status", where: { $0.payload.contains("online") })
        let feeder = try await Feeder.connected(to: broker)
        try await feed(feeder, seconds: 1) { _ in (4, 0.75) }
        feeder.disconnect()
        let position = try await subscriber.waitForMessage(topic: "uwb2mqtt/site/lobby/peer/cart/position")
        #expect(position.properties?.contentType == "application/json" && position.properties?.userProperties == "schema_version:1")
        #expect((Int(position.properties?.messageExpiry ?? "") ?? 99) <= 5, "\(String(describing: position.properties))")
        let status = try #require(subscriber.messages.first { $0.topic == "uwb2mqtt/site/lobby/status" })
        #expect(status.properties?.contentType == "application/json" && status.properties?.messageExpiry == "")
    }

    @Test func positionsZonesAndLoss() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "fuse", topics: ["uwb2mqtt/site/#"])
        defer { subscriber.stop(); broker.stop() }
        // Positions are lost after 5 s of silence here: the rest of the suite can stall the
        // feeder for over 2 s, and the fuse then rightly loses the tag and finds it again.
        let fuse = try startFuse(broker, dir, name: "fuse", positionLostAfter: "5s")
        defer { fuse.terminate() }
        try await subscriber.waitForMessage(topic: "uwb2mqtt/site/lobby/status", where: { $0.payload.contains("online") })
        let feeder = try await Feeder.connected(to: broker)
        // Through the checkout zone: from (4, 0.75) to (1, 0.75) and back out to (4, 4).
        try await feed(feeder, seconds: 6) { t in t < 3 ? (4 - t, 0.75) : (1 + (t - 3), 0.75 + (t - 3)) }
        feeder.disconnect()
        // Fuse may run behind on a loaded machine: wait for the way out of the zone to arrive.
        try await subscriber.waitForMessage(topic: "uwb2mqtt/site/lobby/peer/cart/event", where: { $0.payload.contains("zone_exit") })

        let positions = subscriber.messages.filter { $0.topic == "uwb2mqtt/site/lobby/peer/cart/position" }.map { json($0.payload) }
        let first = try #require(positions.first)
        #expect(first["frame"] as? String == "site" && first["method"] as? String == "multilateration")
        // A fix needs three gateways with tag_height; once all four ranges are in the window, four are used.
        #expect(((first["gateways"] as? [String])?.count ?? 0) >= 3)
        #expect(positions.contains { ($0["gateways"] as? [String])?.count == 4 })
        // Noise-free ranges: within a centimetre of the path, honest accuracy.
        let x = first["x"] as? Double ?? 99, y = first["y"] as? Double ?? 99
        #expect(abs(y - 0.75) < 0.01 && x <= 4.01 && x > 3.5, "\(first)")
        #expect((first["accuracy_m"] as? Double ?? 99) < 0.5)

        // Events are delivered at least once (QoS 1): a redelivery, which has the same id, counts once.
        var seenIDs: Set<String> = []
        let events = subscriber.messages.filter { $0.topic == "uwb2mqtt/site/lobby/peer/cart/event" }.map { json($0.payload) }
            .filter { seenIDs.insert($0["id"] as? String ?? UUID().uuidString).inserted }
        #expect(events.filter { $0["type"] as? String == "zone_enter" }.count == 1, "\(subscriber.messages.filter { $0.topic.hasSuffix("/event") }.map(\.payload))")
        #expect(events.filter { $0["type"] as? String == "zone_exit" }.count == 1)
        #expect(events.first { $0["type"] as? String == "zone_enter" }?["rule"] as? String == "checkout")
        // No more ranges: the position is lost, never guessed.
        try await subscriber.waitForMessage(topic: "uwb2mqtt/site/lobby/peer/cart/event", where: { $0.payload.contains("position_lost") }, timeout: .seconds(20))
        // By then every round of the 6 s walk has had its say (counted now, not when the zone was
        // left: a loaded machine may still be catching up then).
        let allPositions = subscriber.messages.filter { $0.topic == "uwb2mqtt/site/lobby/peer/cart/position" }.count
        #expect(allPositions > 20, "\(allPositions) positions")
        let state = try await subscriber.waitForMessage(topic: "uwb2mqtt/site/lobby/peer/cart/state", where: { json($0.payload)["position"] is NSNull })
        #expect(json(state.payload)["gateways_in_range"] != nil)
    }

    @Test func aStandbyInstanceTakesOverWhenTheActiveOneDies() async throws {
        let (broker, dir, subscriber) = try await startBrokerAndSubscriber(prefix: "fuse-standby", topics: ["uwb2mqtt/site/lobby/status"])
        defer { subscriber.stop(); broker.stop() }
        let first = try startFuse(broker, dir, name: "first")
        defer { first.terminate() }
        let online = try await subscriber.waitForMessage(topic: "uwb2mqtt/site/lobby/status", where: { $0.payload.contains("online") })
        let firstInstance = json(online.payload)["instance"] as? String
        // The retained status gives the zones' outlines (what `watch --site` draws).
        let zones = json(online.payload)["zones"] as? [[String: Any]]
        #expect(zones?.first?["name"] as? String == "checkout")
        #expect((zones?.first?["polygon"] as? [[Double]])?.count == 4)
        let second = try startFuse(broker, dir, name: "second")
        defer { second.terminate() }
        await eventually("the second instance to stand by") {
            ((try? String(contentsOfFile: second.stderrPath, encoding: .utf8)) ?? "").contains("standing by")
        }
        first.kill(SIGKILL)
        let takeover = try await subscriber.waitForMessage(topic: "uwb2mqtt/site/lobby/status", where: {
            json($0.payload)["state"] as? String == "online" && json($0.payload)["instance"] as? String != firstInstance
        }, timeout: .seconds(30))
        #expect(json(takeover.payload)["instance"] as? String != nil)
    }

    /// The fuse's `mqtt` section is decoded as the agent's is: a problem names its file, line and
    /// column, and the fuse exits 1.
    @Test func aBadBrokerSettingIsReportedAtItsPlace() async throws {
        let dir = try TemporaryDirectory(prefix: "fuse-bad-mqtt")
        let path = try dir.write("fuse.yaml", "site: lobby\nmqtt:\n  url: http://broker\n")
        let fuse = try ChildProcess(executable: AgentProcess.executable, arguments: ["fuse", "--config", path],
                                    stdoutPath: dir.file("out"), stderrPath: dir.file("err"))
        defer { fuse.terminate() }
        #expect(await fuse.waitForExit(timeout: .seconds(10)) == .exited(1))
        let errors = (try? String(contentsOfFile: dir.file("err"), encoding: .utf8)) ?? ""
        #expect(errors.contains("\(path):3:8: mqtt.url must start with mqtt:// or mqtts://"), "\(errors)")
    }
}

/// `seconds` since the epoch as a payload's `ts` (RFC 3339 UTC, milliseconds).
func rfc3339(_ seconds: Double) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date(timeIntervalSince1970: seconds))
}

/// A feeder's MQTT client on an event loop thread of its own.
final class Feeder: Sendable {
    private let thread: EventLoopThread
    private let box: Box

    private final class Box: @unchecked Sendable {
        // Touched only on the loop's thread.
        var client: MQTTClient?
    }

    init(configuration: MQTTConfiguration) throws {
        thread = try EventLoopThread(name: "feeder loop")
        box = Box()
        let box = self.box
        try thread.sync { loop in
            box.client = try MQTTClient(configuration: configuration, loop: loop) { _ in }
            try box.client!.start()
        }
    }

    /// A feeder client, connected: QoS 0 ranges published before the CONNACK would be dropped.
    static func connected(to broker: MosquittoBroker) async throws -> Feeder {
        let client = try Feeder(configuration: try MQTTConfiguration(url: broker.url, clientID: "fuse-feeder-\(getpid())"))
        guard await waitUntil(timeout: 10, { client.isConnected }) else {
            throw TestSupportError.timedOut(waitingFor: "the feeder to connect", after: .seconds(10), detail: "")
        }
        return client
    }

    var isConnected: Bool {
        let box = self.box
        return thread.run { _ in box.client?.isConnected ?? false }
    }

    func publish(topic: String, payload: String, qos: MQTTQoS, retain: Bool = false) throws {
        let box = self.box
        try thread.sync { _ in _ = try box.client!.publish(topic: topic, payload: payload, qos: qos, retain: retain) }
    }

    func disconnect() {
        let box = self.box
        thread.run { _ in
            box.client?.disconnect()
            box.client = nil
        }
        thread.stop()
    }
}
