import Vocabulary
import SiteFusion
import Testing

/// Peers unseen for `forgetAfter` are forgotten (after their loss), and `tick` is driven by
/// `nextDeadline`: a tracker with nothing due has nothing to do, and one with no peers no
/// deadline at all.
@Suite struct FusionTrackerForgettingTests {
    static let settings = FusionSettings(window: 0.15, tagHeight: 1, positionLostAfter: 2, forgetAfter: 10)

    static func tracker(zones: [PolygonZone] = []) -> FusionTracker {
        var tracker = FusionTracker(settings: settings, zones: zones)
        for (id, p) in SyntheticSite.square { tracker.updateGateway(id, position: p, online: true) }
        return tracker
    }

    /// One round of all four gateways ranging `peer` at `tag`, from `time` on (10 ms apart).
    static func round(_ tracker: inout FusionTracker, _ peer: String, at time: Double,
                      tag: SitePoint = SitePoint(x: 3, y: 2, z: 1)) -> [FusionOutput] {
        var outputs: [FusionOutput] = []
        for (i, (id, p)) in SyntheticSite.square.enumerated() {
            outputs += tracker.ingest(GatewayRange(peer: peer, gateway: id, distanceM: tag.distance(to: p), time: time + 0.01 * Double(i)))
        }
        return outputs
    }

    static func close(_ a: Double?, _ b: Double) -> Bool { a.map { abs($0 - b) < 1e-9 } ?? false }

    static func forgotten(_ outputs: [FusionOutput]) -> [String] {
        outputs.compactMap { if case .forgotten(let peer) = $0 { peer } else { nil } }
    }

    /// The deadlines in order: the loss at the last fix + 2 s (with the gateways in range dropping
    /// to 0 at the same moment), then forgetting at the last range + 10 s, then none.
    @Test func aSilentPeerIsLostThenForgotten() throws {
        var tracker = Self.tracker()
        let outputs = Self.round(&tracker, "cart", at: 100)
        #expect(outputs.contains { if case .position = $0 { true } else { false } })
        // The first three gateways made the tag's first round; the fourth, new to it, began one of
        // its own, which the window closes (100.03 s + 150 ms) with a fix of all four.
        #expect(Self.close(tracker.nextDeadline, 100.18))
        let whole = tracker.tick(at: 100.18)
        #expect(whole.contains { if case .position(let p) = $0 { p.gateways.count == 4 } else { false } })
        #expect(Self.close(tracker.nextDeadline, 102.03))

        #expect(tracker.tick(at: 101).isEmpty, "nothing is due before the deadline")
        let lost = tracker.tick(at: try #require(tracker.nextDeadline))
        #expect(lost.contains { if case .event(let e) = $0 { e.type == .positionLost } else { false } })
        #expect(lost.contains { if case .state(let s) = $0 { s.position == nil && s.gatewaysInRange == 0 } else { false } })
        #expect(Self.forgotten(lost).isEmpty && tracker.peerNames == ["cart"])

        #expect(Self.close(tracker.nextDeadline, 110.03))
        #expect(tracker.tick(at: 109).isEmpty)
        #expect(Self.forgotten(tracker.tick(at: 110.03)) == ["cart"])
        #expect(tracker.peerCount == 0 && tracker.state(of: "cart") == nil)
        #expect(tracker.nextDeadline == nil)
    }

    /// A tick that comes late (a stalled service) still says the loss before forgetting, each at
    /// its own moment.
    @Test func aLateTickLosesThenForgetsInOrder() throws {
        var tracker = Self.tracker()
        _ = Self.round(&tracker, "cart", at: 100)
        let outputs = tracker.tick(at: 200)
        let lost = try #require(outputs.firstIndex { if case .event(let e) = $0 { e.type == .positionLost } else { false } })
        let forgotten = try #require(outputs.firstIndex { if case .forgotten = $0 { true } else { false } })
        #expect(lost < forgotten)
        if case let .event(e) = outputs[lost] { #expect(abs(e.ts - 102.03) < 1e-9) }
        #expect(tracker.peerCount == 0 && tracker.nextDeadline == nil)
    }

    /// Ranges keep a peer: forgetting counts from its newest range, whatever its gateway.
    @Test func aPeerStillRangingIsKept() {
        var tracker = Self.tracker()
        for second in 0..<30 { _ = Self.round(&tracker, "cart", at: 100 + Double(second)) }
        #expect(Self.forgotten(tracker.tick(at: 130)).isEmpty)
        #expect(tracker.peerNames == ["cart"])
        #expect(Self.close(tracker.nextDeadline, 131.03))
        // One gateway's range alone is seen too (no fix from it, but the peer is not silent).
        _ = tracker.ingest(GatewayRange(peer: "cart", gateway: "gw-a", distanceM: 3, time: 135))
        #expect(Self.forgotten(tracker.tick(at: 144)).isEmpty)
        #expect(Self.forgotten(tracker.tick(at: 145)) == ["cart"])
    }

    /// A forgotten peer that ranges again starts afresh: a new state, no `position_regained` (the
    /// consumer saw its state cleared, not lost).
    @Test func aForgottenPeerComesBackAsNew() {
        var tracker = Self.tracker()
        _ = Self.round(&tracker, "cart", at: 100)
        _ = tracker.tick(at: 120)
        let again = Self.round(&tracker, "cart", at: 200)
        #expect(again.contains { if case .position = $0 { true } else { false } })
        #expect(again.contains { if case .state = $0 { true } else { false } })
        #expect(!again.contains { if case .event = $0 { true } else { false } })
    }

    /// Thousands of names, each seen once, then silence: every one is lost and forgotten, in
    /// order of its deadline, and the tracker holds nothing after.
    @Test func aCrowdOfNamesIsForgotten() {
        var tracker = Self.tracker()
        for i in 0..<5000 {
            _ = tracker.ingest(GatewayRange(peer: "tag-\(i)", gateway: SyntheticSite.square[i % 4].0, distanceM: 3, time: 100 + Double(i) * 0.001))
        }
        #expect(tracker.peerCount == 5000)
        // Each name's round (one gateway: no fix) closes with the window, 150 ms after its range.
        #expect(Self.close(tracker.nextDeadline, 100.15))
        var forgotten: [String] = []
        var time = 100.0
        while let next = tracker.nextDeadline {
            #expect(next >= time)
            time = next
            forgotten += Self.forgotten(tracker.tick(at: time))
        }
        #expect(forgotten.count == 5000 && Set(forgotten).count == 5000)
        #expect(forgotten.first == "tag-0" && forgotten.last == "tag-4999")
        #expect(tracker.peerCount == 0)
    }

    /// Between ranges, `tick` at any moment before the next deadline gives nothing, and a pending
    /// dwell is a deadline of its own.
    @Test func aPendingDwellIsADeadline() throws {
        let zone = PolygonZone(name: "checkout", vertices: [PlanarPoint(x: 0, y: 0), PlanarPoint(x: 6, y: 0), PlanarPoint(x: 6, y: 3), PlanarPoint(x: 0, y: 3)],
                               hysteresis: 0.1, dwell: 0.3)
        var tracker = Self.tracker(zones: [zone])
        _ = Self.round(&tracker, "cart", at: 100)
        // The fourth gateway's round first (see aSilentPeerIsLostThenForgotten).
        _ = tracker.tick(at: try #require(tracker.nextDeadline))
        // Inside since the first fix (at 100.02 s, the third range): the dwell ends 300 ms later.
        let due = try #require(tracker.nextDeadline)
        #expect(abs(due - 100.32) < 1e-9)
        #expect(tracker.tick(at: due - 0.01).isEmpty)
        let entered = tracker.tick(at: due)
        #expect(entered.contains { if case .event(let e) = $0 { e.type == .zoneEnter } else { false } })
        #expect(Self.close(tracker.nextDeadline, 102.03))
    }
}
