import Fuse
import SiteFusion
import Testing
import Vocabulary

/// `shard: {index, count}` and `max_lag` in the fuse's core: two shards together publish exactly
/// what one fuse publishes, each tag by one shard; a fuse that reads ranges late drops them and
/// says so.
@Suite struct FuseShardTests {
    static let gateways = SyntheticSite.square

    static func core(_ shard: FuseShard = .whole, maxLag: Double = 0.5) -> FuseCore {
        var configuration = FuseConfiguration(site: "lobby", tagHeight: 1, maxLag: TimeSpan(seconds: maxLag), shard: shard)
        configuration.mqtt.baseTopic = "uwb2mqtt"
        return FuseCore(configuration: configuration, instanceID: "i\(shard.index)")
    }

    /// Online and holding the site, with the square's gateways placed.
    static func started(_ core: inout FuseCore) -> [FuseAction] {
        var actions = core.connected(at: 100) + core.tick(at: 101.5)
        for (id, p) in gateways {
            let status = #"{"state": "online", "ts": "2026-12-05T00:00:00.000Z", "version": "t", "position": {"x": \#(p.x), "y": \#(p.y), "z": \#(p.z)}, "heading_deg": 0, "ranging_interval_ms": 200}"#
            actions += core.receive(topic: "uwb2mqtt/\(id)/status", payload: Array(status.utf8), at: 101.6)
        }
        return actions
    }

    static func range(_ gateway: String, _ peer: String, _ distance: Double, sentAt: Double) -> [UInt8] {
        Array(#"{"ts": "\#(Timestamp.rfc3339(sentAt))", "peer": "\#(peer)", "mac": "0x0001", "session": 42, "seq": 1, "status": "ok", "distance_m": \#(distance), "raw_distance_m": \#(distance), "nlos": false}"#.utf8)
    }

    /// Ten tags walking for 5 s, each gateway ranging each at 5 Hz in turn; `lag(t)` late.
    static func walk(_ core: inout FuseCore, lag: (Double) -> Double = { _ in 0 }) -> [FuseAction] {
        var actions: [FuseAction] = []
        for step in 0..<100 {
            let t = 102 + Double(step) * 0.05
            let (id, g) = gateways[step % 4]
            for tag in 0..<10 {
                let p = SitePoint(x: 1 + 0.3 * Double(tag) + 0.2 * (t - 102), y: 1 + 0.4 * Double(tag), z: 1)
                actions += core.receive(topic: "uwb2mqtt/\(id)/peer/tag-\(tag)/range",
                                        payload: range(id, "tag-\(tag)", p.distance(to: g), sentAt: t - lag(t)), at: t)
            }
            if step % 2 == 1 { actions += core.tick(at: t + 0.05) }
        }
        return actions + core.tick(at: 120)
    }

    /// What is published on the peers' topics, each payload without its event `id` (which names
    /// the instance), in order.
    static func peerMessages(_ actions: [FuseAction]) -> [String] {
        actions.compactMap { action -> String? in
            guard case let .publish(topic, payload, _, _) = action, topic.contains("/peer/") else { return nil }
            guard !payload.isEmpty, case let .object(members)? = try? JSONReader.value(payload) else { return topic + " <empty>" }
            return topic + " " + String(decoding: JSONBytes.object(members.filter { $0.key != "id" }), as: UTF8.self)
        }
    }

    @Test func twoShardsPublishWhatOneFusePublishes() {
        var whole = Self.core()
        _ = Self.started(&whole)
        let one = Self.peerMessages(Self.walk(&whole))
        var shards = [Self.core(FuseShard(index: 0, count: 2)), Self.core(FuseShard(index: 1, count: 2))]
        var split: [[String]] = []
        for i in shards.indices {
            _ = Self.started(&shards[i])
            split.append(Self.peerMessages(Self.walk(&shards[i])))
        }
        #expect(!one.isEmpty)
        #expect(one.sorted() == (split[0] + split[1]).sorted())
        // Each tag is one shard's, and each shard has some.
        let tags = split.map { Set($0.map { $0.split(separator: "/")[4] }) }
        #expect(tags[0].isDisjoint(with: tags[1]) && !tags[0].isEmpty && !tags[1].isEmpty, "\(tags)")
        // Each shard holds its own status topic.
        #expect(shards[1].statusTopic == "uwb2mqtt/site/lobby/shard/1/status" && whole.statusTopic == "uwb2mqtt/site/lobby/status")
    }

    @Test func aFuseThatFallsBehindDropsTheLateRangesAndSaysSo() {
        var core = Self.core(maxLag: 0.5)
        _ = Self.started(&core)
        // On time for 2 s, then the ranges it reads are ever later (up to 1.5 s), then on time again.
        let actions = Self.walk(&core) { t in t < 104 ? 0 : t < 106 ? (t - 104) * 0.75 : 0 }
        #expect(core.rangesDropped > 0)
        let logs = actions.compactMap { if case let .log(_, line) = $0 { line } else { nil } }
        #expect(logs.contains { $0.hasPrefix("falling behind: ranges arrive") }, "\(logs)")
        #expect(logs.contains { $0.hasPrefix("caught up: ") }, "\(logs)")
        let statuses = actions.compactMap { action -> [String: JSONValue]? in
            guard case let .publish(topic, payload, _, _) = action, topic == core.statusTopic,
                  case let .object(members)? = try? JSONReader.value(payload) else { return nil }
            return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        }
        #expect(statuses.contains { if case let .int(n)? = $0["ranges_dropped"] { n > 0 } else { false } }, "\(statuses)")
        // Positions went on before and after.
        #expect(actions.contains { if case let .publish(topic, _, _, _) = $0 { topic.hasSuffix("/position") } else { false } })
    }
}
