import Foundation
import Fuse
import SiteFusion
import Testing
import Vocabulary

/// What anyone on the broker can do to a site beyond a payload the fuse reads wrongly: a range
/// just inside `max_clock_skew` ahead, a payload naming another tag than its topic, the retained
/// site status cleared, and gateways and tags made up by the hundred or the thousand.
@Suite struct FuseHostileSiteTests {
    typealias Site = FuseShardTests

    static func logs(_ actions: [FuseAction]) -> [String] {
        actions.compactMap { if case let .log(_, line) = $0 { line } else { nil } }
    }

    static func positions(_ actions: [FuseAction], of peer: String) -> [[String: JSONValue]] {
        actions.compactMap { action -> [String: JSONValue]? in
            guard case let .publish(topic, payload, _, _) = action, topic == "uwb2mqtt/site/lobby/peer/\(peer)/position",
                  case let .object(members)? = try? JSONReader.value(payload) else { return nil }
            return Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        }
    }

    /// One tag at (3, 2) ranged by the square's gateways in turn every 50 ms for 5 s, each range
    /// arriving when sent; at 1 s, one range per gateway for a tag `zz` dated 1.9 s ahead (inside
    /// the 2 s `max_clock_skew`). `rests`: the fuse's loop found nothing to read before each range
    /// (it keeps up).
    static func poisoned(rests: Bool) -> (FuseCore, [FuseAction]) {
        var core = Site.core(maxLag: 0.5)
        _ = Site.started(&core)
        var actions: [FuseAction] = []
        let tag = SitePoint(x: 3, y: 2, z: 1)
        for step in 0..<100 {
            let t = 102 + Double(step) * 0.05
            if rests { core.rested(at: t - 0.02) }
            if step == 20 {
                for (id, _) in Site.gateways {
                    actions += core.receive(topic: "uwb2mqtt/\(id)/peer/zz/range", payload: Site.range(id, "zz", 3, sentAt: t + 1.9), at: t)
                }
            }
            let (id, g) = Site.gateways[step % 4]
            actions += core.receive(topic: "uwb2mqtt/\(id)/peer/cart/range", payload: Site.range(id, "cart", tag.distance(to: g), sentAt: t), at: t)
            if step % 2 == 1 { actions += core.tick(at: t + 0.05) }
        }
        return (core, actions)
    }

    /// The forged ranges set each gateway's least age 1.9 s below its honest ranges', which then
    /// all looked 1.9 s late and were dropped for a minute. A fuse whose loop rests between them
    /// is not behind, whatever a `ts` says: it drops nothing and goes on placing the tag.
    @Test func rangesDatedJustInsideTheSkewAheadBlindNoFuseThatKeepsUp() {
        let (core, actions) = Self.poisoned(rests: true)
        #expect(core.rangesDropped == 0)
        #expect(!Self.logs(actions).contains { $0.hasPrefix("falling behind") }, "\(Self.logs(actions))")
        let after = Self.positions(actions, of: "cart").filter {
            if case let .string(ts)? = $0["ts"], let time = Timestamp.parse(ts) { time > 103.1 } else { false }
        }
        // Rounds of four ranges 50 ms apart: some 19 from 103.1 s on.
        #expect(after.count >= 15, "\(after.count) positions after the forged ranges")
        // Without rests (a fuse that never found its socket empty) the ranges' own word is all it
        // has, and it sheds them: the rests are what tells the two apart.
        let (busy, _) = Self.poisoned(rests: false)
        #expect(busy.rangesDropped > 0)
    }

    @Test func aRangeWhosePeerIsNotTheTopicsTagIsRefused() {
        var core = Site.core()
        _ = Site.started(&core)
        let actions = core.receive(topic: "uwb2mqtt/gw-a/peer/t1/range", payload: Site.range("gw-a", "other", 3, sentAt: 102), at: 102)
        #expect(core.rejections["peer not the topic's"] == 1)
        #expect(!core.tracker.tracks("other") && !core.tracker.tracks("t1"))
        #expect(Self.logs(actions).contains { $0.contains("range of other from gateway gw-a: its \"peer\" is not the tag its topic names") },
                "\(Self.logs(actions))")
        // A name the topic sanitizes is its own topic's.
        _ = core.receive(topic: "uwb2mqtt/gw-a/peer/cart_1/range", payload: Site.range("gw-a", "Cart 1", 3, sentAt: 102), at: 102)
        #expect(core.tracker.tracks("Cart 1"))
    }

    /// A retained site status cleared by hand (to free a site an instance left without its will)
    /// kept every stand-by waiting for the instance it named, for good. The holder says it again;
    /// a stand-by waits a second for that and takes the site when nobody does.
    @Test func aClearedSiteStatusIsSaidAgainByItsHolderOrTaken() {
        var holder = Site.core()
        _ = Site.started(&holder)
        #expect(holder.active)
        let again = holder.receive(topic: holder.statusTopic, payload: [UInt8](), at: 110)
        #expect(again.contains { if case let .publish(topic, payload, _, true) = $0 { topic == holder.statusTopic && !payload.isEmpty } else { false } })

        var standBy = FuseCore(configuration: holder.configuration, instanceID: "j")
        _ = standBy.connected(at: 100)
        _ = standBy.receive(topic: standBy.statusTopic, payload: Array(#"{"state": "online", "instance": "gone"}"#.utf8), at: 100.2)
        let waiting = Self.logs(standBy.tick(at: 101.5))
        #expect(!standBy.active && waiting == ["standing by: instance gone holds site lobby"], "\(waiting)")
        _ = standBy.receive(topic: standBy.statusTopic, payload: [UInt8](), at: 110)
        #expect(!standBy.active)
        #expect(standBy.nextWake == 111)
        let taken = standBy.tick(at: 111)
        #expect(standBy.active, "\(Self.logs(taken))")
        #expect(Self.logs(taken).contains("active for site lobby"))
        // Holding the site, it does not say it stands by for itself later.
        #expect(Self.logs(standBy.tick(at: 130)).isEmpty)
    }

    /// 300 gateways announced on the broker, all ranging one tag, held the fuse's core for 47 s
    /// (every fix tries leaving out each one or two ranges); made-up gateways and tags by the
    /// thousand grew what it keeps without bound. A fix uses the 8 nearest gateways, and the
    /// fuse keeps at most `maximumGateways` gateways and `maximumPeers` tags.
    @Test func madeUpGatewaysAndTagsStopAtTheirBounds() {
        var core = Site.core()
        _ = Site.started(&core)
        // Twelve gateways on a circle of 10 m around the tag, at distances growing with their index.
        let tag = SitePoint(x: 50, y: 50, z: 1)
        var ring: [(String, SitePoint)] = []
        for i in 0..<12 {
            let angle = Double(i) * .pi / 6, radius = 4 + Double(i) * 0.5
            ring.append(("ring-\(i)", SitePoint(x: 50 + radius * cos(angle), y: 50 + radius * sin(angle), z: 2.5)))
        }
        for (id, p) in ring {
            let status = #"{"state": "online", "position": {"x": \#(p.x), "y": \#(p.y), "z": \#(p.z)}, "ranging_interval_ms": 200}"#
            _ = core.receive(topic: "uwb2mqtt/\(id)/status", payload: Array(status.utf8), at: 102)
        }
        // Two rounds: a new tag's first fix comes as soon as a fix can be had, from three.
        var actions: [FuseAction] = []
        for t in [102.1, 102.3] {
            for (id, p) in ring {
                actions += core.receive(topic: "uwb2mqtt/\(id)/peer/far/range", payload: Site.range(id, "far", tag.distance(to: p), sentAt: t), at: t)
            }
        }
        let fix = Self.positions(actions, of: "far").last
        #expect(fix?["gateways"] == .list((0..<8).map { .string("ring-\($0)") }), "\(String(describing: fix))")

        for i in 0..<(FuseCore.maximumGateways - 16 + 3) {
            _ = core.receive(topic: "uwb2mqtt/made-up-\(i)/status", payload: Array(#"{"state": "online"}"#.utf8), at: 103)
        }
        #expect(core.tracker.gateways.entries.count == FuseCore.maximumGateways)
        #expect(core.rejections["too many gateways"] == 3)
        let (id, g) = Site.gateways[0]
        for i in 0..<(FuseCore.maximumPeers + 2) {
            _ = core.receive(topic: "uwb2mqtt/\(id)/peer/p\(i)/range", payload: Site.range(id, "p\(i)", g.distance(to: tag), sentAt: 104), at: 104)
        }
        #expect(core.tracker.peerCount == FuseCore.maximumPeers)
        #expect(core.rejections["too many peers"] == 3)
        // A tag already tracked is still fused.
        _ = core.receive(topic: "uwb2mqtt/\(id)/peer/far/range", payload: Site.range(id, "far", 5, sentAt: 104.1), at: 104.1)
        #expect(core.rejections["too many peers"] == 3)
        // A real gateway that comes later is kept out while every known one was heard from
        // within forget_after (60 s), and then takes the place of the one silent longest.
        let late = Array(#"{"state": "online", "position": {"x": 9, "y": 9, "z": 2.5}}"#.utf8)
        _ = core.receive(topic: "uwb2mqtt/late/status", payload: late, at: 150)
        #expect(core.tracker.gateways.entries["late"] == nil && core.rejections["too many gateways"] == 4)
        _ = core.receive(topic: "uwb2mqtt/late/status", payload: late, at: 163.5)
        #expect(core.tracker.gateways.entries["late"] != nil && core.tracker.gateways.entries.count == FuseCore.maximumGateways)
        // One of the square's others, silent since their statuses at 101.6 s, made way; the one
        // that ranged at 104 s stays.
        #expect(Site.gateways.filter { core.tracker.gateways.entries[$0.0] == nil }.count == 1 && core.tracker.gateways.entries[id] != nil)
    }
}
