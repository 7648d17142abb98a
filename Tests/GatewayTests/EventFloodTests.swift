import Foundation
@testable import Gateway
import Proximity
import Testing
import UCI
import RulesReading

/// A rules file that turns every measurement into events (64 zones 1 mm wide, no dwell) cannot
/// fill the journal: the agent publishes each peer's events within its budget (EventBudget), counts
/// the rest in `events_dropped`, says so once per 10 s, and what it publishes never leaves a
/// consumer in a zone the peer left.
@Suite struct EventFloodTests {
    static let cart = AgentConfiguration.Peer(address: 2, name: "tool-cart")

    func core() throws -> AgentCore {
        var core = AgentCore(settings: AgentCore.Settings(topics: TopicTree(base: "uwb2mqtt", gatewayID: "gw"), eventIDPrefix: "gw:test",
                                                          sessionID: 42, qosRanges: 0, stateIntervalSeconds: 1),
                             peers: [Self.cart], identities: [], gateway: nil)
        var text = "version: 1\nfilter: {kind: none}\nzones:\n"
        for i in 0..<RulesBounds.zones { text += "  - {name: z\(i), enter_within: 2.0, exit_beyond: 2.001}\n" }
        core.replaceRules(try RulesFile.load(text: text, file: "rules.yaml"), at: 999)
        return core
    }

    func round(_ centimetres: UInt16, _ sequence: UInt32) -> SessionInfo {
        SessionInfo(sequenceNumber: sequence, sessionHandle: 1, currentRangingInterval: 50, measurements: .twoWay([
            TwoWayRangingMeasurement(macAddress: .short(2), status: .ok, nlosRaw: 0, distanceRaw: centimetres)]))
    }

    func object(_ message: Outbox.Message) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any]) ?? [:]
    }

    @Test func aFloodOfZoneCrossingsIsBoundedCountedAndSaidOncePerTenSeconds() throws {
        var core = try core()
        var events: [[String: Any]] = []
        var lastState: [String: Any] = [:]
        var logs: [String] = []
        func take() {
            for message in core.take() {
                if message.topic.hasSuffix("/event") { events.append(object(message)) }
                if message.topic.hasSuffix("/state") { lastState = object(message) }
            }
            logs += core.takeActions().compactMap { if case let .log(_, text) = $0 { text } else { nil } }
        }
        // 20 measurements a second for 30 s, across all 64 zones at each: 38,400 crossings.
        for step in 0..<600 {
            core.ranging(round(step % 2 == 0 ? 190 : 210, UInt32(step)), at: 1000 + Double(step) * 0.05)
            take()
        }
        let produced = 600 * 64
        #expect(events.count <= 100 + 10 * 30 + 64, "\(events.count) published")
        #expect(core.eventsDropped == produced - events.count && core.events == events.count)
        let metrics = Dictionary(uniqueKeysWithValues: core.metrics(at: AgentMoment(time: 1030, monotonic: 30)).map { ($0.key, $0.value) })
        #expect(metrics["events_dropped"] == .int(Int64(produced - events.count)))
        // Said at the first drop and once per 10 s after, each time with the count of the rest.
        let said = logs.filter { $0.hasPrefix("dropped a zone_") }
        #expect(said.count == 3, "\(logs)")
        #expect(said.first?.contains("a peer publishes at most 10 events a second, in bursts of 100 (counted in metrics as events_dropped") == true)
        #expect(logs.filter { $0.hasPrefix("… ") && $0.contains("more like it in the last 10 s") }.count == 2, "\(logs)")

        // The tag goes silent: the link is lost and every zone a consumer saw it enter is left.
        for step in 1...40 {
            core.tick(at: 1030 + Double(step) * 0.1)
            take()
        }
        // What a consumer makes of the events: every exit follows its entry, and none is left inside.
        var inside: Set<String> = []
        for event in events {
            let rule = event["rule"] as? String ?? ""
            switch event["type"] as? String {
            case "zone_enter":
                let new = inside.insert(rule).inserted
                #expect(new, "\(rule) entered twice")
            case "zone_exit":
                let was = inside.remove(rule) != nil
                #expect(was, "\(rule) left without an entry")
            default: break
            }
        }
        #expect(inside.isEmpty, "\(inside.sorted())")
        #expect(lastState["link"] as? String == "lost" && (lastState["zones"] as? [String]) == [])
        // Ids stay without gaps: a dropped event takes none.
        let counters = events.compactMap { ($0["id"] as? String)?.split(separator: ":").last.flatMap { Int($0) } }
        #expect(counters == Array(1...events.count))
    }
}
