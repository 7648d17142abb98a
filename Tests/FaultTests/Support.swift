import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// Helpers of the fault-injection suite; AgentProcess and the fixtures live in TestSupport.

/// `UWB2MQTT_SOAK=1` selects the long variants (`make soak`).
let soak = ProcessInfo.processInfo.environment["UWB2MQTT_SOAK"] == "1"

/// Shorthands for the shared fixtures of TestSupport.
func testConfig(url: String, spool: String, extra: String = "", mqttExtra: String = "", devicePort: String? = nil) -> String {
    AgentFixtures.config(url: url, spool: spool, extra: extra, mqttExtra: mqttExtra, devicePort: devicePort)
}

func json(_ text: String) -> [String: Any] { AgentFixtures.json(text) }

let exampleRulesPath = AgentFixtures.exampleRulesPath

/// Polls `condition` until it holds or `timeout` passes (then records an issue with `what`).
@discardableResult
func eventually(_ what: String, timeout: Double = 15, _ condition: () -> Bool) async -> Bool {
    if await waitUntil(timeout: timeout, condition) { return true }
    Issue.record("timed out waiting for \(what)")
    return false
}

/// An event id `<gw>:<boot id>:<counter>` taken apart.
struct EventID: Hashable, CustomStringConvertible {
    var boot: String
    var counter: Int

    init(boot: String, counter: Int) {
        self.boot = boot
        self.counter = counter
    }

    init?(_ text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let counter = Int(parts[2]) else { return nil }
        boot = String(parts[1])
        self.counter = counter
    }

    var description: String { "\(boot):\(counter)" }
}

/// The event ids a subscriber received (every `peer/+/event` message, duplicates included), in order.
func eventIDs(_ subscriber: MQTTTestSubscriber) -> [EventID] {
    subscriber.messages.filter { $0.topic.hasSuffix("/event") }.compactMap { (json($0.payload)["id"] as? String).flatMap(EventID.init) }
}

/// Checks the delivery promise on what arrived: per boot id, the counters seen (first occurrence of
/// each, duplicates being QoS 1's right) run 1, 2, 3, … without a gap and in order.
/// Returns a description of every violation (empty when none).
func deliveryViolations(_ ids: [EventID]) -> [String] {
    var problems: [String] = []
    var seen: Set<EventID> = []
    var next: [String: Int] = [:]
    for id in ids where seen.insert(id).inserted {
        let expected = next[id.boot, default: 1]
        if id.counter != expected {
            problems.append(id.counter > expected ? "gap: \(id.boot) expected \(expected), got \(id.counter)"
                                                  : "out of order: \(id) after \(expected - 1)")
        }
        next[id.boot] = max(expected, id.counter + 1)
    }
    return problems
}

/// The broker of the request-flood tests. Debian's mosquitto 2.0.11 drops QoS 0 messages for a
/// client once a thousand packets wait for it ("Outgoing messages are being dropped for client
/// …"), which a flood of 10,000 requests a second does to the agent on a loaded machine; from
/// then on it can lose other packets for that client too (measured on the wire: PUBACKs and a
/// QoS 1 request it logged as sent never reached the socket), and the agent waits for them until
/// its keepalive. These tests are about the agent under a flood, not about that: the broker
/// queues the whole flood.
let floodBroker = MosquittoBroker.Options(extraConfig: ["max_queued_messages 200000"])
