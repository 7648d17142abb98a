import Vocabulary
import SiteFusion
import Testing

/// position_lost after `position_lost_after` without a fix, position_regained when fixes return,
/// gateways learned from status, and never a position from too few gateways.
@Suite struct FusionTrackerLossTests {
    static func still(_: Double) -> SitePoint { SitePoint(x: 2.5, y: 3, z: 1) }

    @Test func tooFewGatewaysLosesThePositionAndRegainsIt() throws {
        var harness = TrackerHarness(zones: [FusionTrackerZoneTests.checkout])
        // All four until 5 s; only gw-a and gw-b from 5 s to 9 s; all four again from 10 s.
        harness.run(from: 0, to: 12, path: Self.still) { t, gw in t < 5 || t >= 10 || gw == "gw-a" || gw == "gw-b" }
        let positions = harness.positions
        #expect(positions.allSatisfy { $0.gateways.count >= 3 })
        #expect(!positions.contains { (5.1..<10).contains($0.ts) })
        // Fixes continue until 5.05 s: the window still holds gw-c's and gw-d's last ranges.
        let lastFixBefore = try #require(positions.last { $0.ts < 9 }?.ts)
        #expect(lastFixBefore < 5.1)
        let firstFixAfter = try #require(positions.first { $0.ts >= 10 }?.ts)

        let events = harness.events
        #expect(events.map(\.type) == [.zoneEnter, .positionLost, .zoneExit, .positionRegained, .zoneEnter])
        let lost = events[1], exit = events[2], regained = events[3]
        #expect(abs(lost.ts - (lastFixBefore + 2)) < 1e-9)
        #expect(lost.reason.cause == "too_few_gateways")
        #expect(lost.reason.lastSeen == lastFixBefore)
        #expect(exit.zone == "checkout" && exit.reason.cause == "position_lost" && exit.ts == lost.ts)
        #expect(regained.ts == firstFixAfter && regained.reason.lastSeen == lastFixBefore)
        #expect(regained.from == "lost" && regained.to == "available")

        let lostState = try #require(harness.states.first { $0.position == nil && $0.ts > 5 })
        #expect(lostState.zones == [] && lostState.gatewaysInRange == 2)
        #expect(harness.tracker.state(of: "cart")?.position != nil)
        #expect(harness.tracker.state(of: "cart")?.gatewaysInRange == 4)
    }

    @Test func silenceIsATimeout() throws {
        var harness = TrackerHarness()
        harness.run(from: 0, to: 6, path: Self.still) { t, _ in t < 1 }
        let lastFix = try #require(harness.positions.last?.ts)
        let lost = try #require(harness.events.first)
        #expect(harness.events.count == 1)
        #expect(lost.type == .positionLost && lost.reason.cause == "timeout")
        #expect(abs(lost.ts - (lastFix + 2)) < 1e-9)
        let state = try #require(harness.tracker.state(of: "cart"))
        #expect(state.position == nil && state.gatewaysInRange == 0)
    }

    @Test func noEventBeforeTheFirstFix() {
        var harness = TrackerHarness()
        harness.run(from: 0, to: 5, path: Self.still) { _, gw in gw == "gw-a" }
        #expect(harness.positions.isEmpty && harness.events.isEmpty)
        #expect(harness.tracker.state(of: "cart")?.position == nil)
    }

    /// Offline or unplaced gateways do not count: with two of four usable there is no position.
    @Test func gatewaysWithoutPositionOrOfflineAreIgnored() {
        var harness = TrackerHarness()
        harness.tracker.updateGateway("gw-c", position: nil, online: true)
        harness.tracker.updateGateway("gw-d", position: SyntheticSite.square[3].1, online: false)
        harness.run(from: 0, to: 2, path: Self.still)
        #expect(harness.positions.isEmpty)
        #expect(harness.tracker.state(of: "cart")?.gatewaysInRange == 2)
        harness.tracker.updateGateway("gw-d", position: SyntheticSite.square[3].1, online: true)
        harness.run(from: 2, to: 3, path: Self.still)
        #expect(harness.positions.allSatisfy { $0.gateways == ["gw-a", "gw-b", "gw-d"] })
        #expect(!harness.positions.isEmpty)
    }

    /// Free z: three gateways are not enough even when they give a 2-D answer.
    @Test func freeZNeedsFourGateways() {
        var harness = TrackerHarness(tagHeight: nil, gateways: SyntheticSite.staggered)
        harness.run(from: 0, to: 2, path: Self.still) { _, gw in gw != "gw-d" }
        #expect(harness.positions.isEmpty)
    }

    /// A walking tag with 5 cm noise is tracked within 15 cm (the bar) at every fix.
    @Test func walkingTagIsTrackedWithinFifteenCentimetres() {
        var harness = TrackerHarness(rangeNoise: 0.05, seed: 42)
        let path = { (t: Double) in SitePoint(x: 1 + 0.4 * t, y: 1 + 0.3 * t, z: 1) }  // 0.5 m/s diagonal
        harness.run(from: 0, to: 10, path: path)
        let errors = harness.positions.map { p in
            let truth = path(p.ts)
            return ((p.x - truth.x) * (p.x - truth.x) + (p.y - truth.y) * (p.y - truth.y)).squareRoot()
        }
        let sorted = errors.sorted()
        let mean = errors.reduce(0, +) / Double(errors.count)
        print("walking tag 0.5 m/s, 5 cm noise: \(errors.count) fixes, mean \(mean) m, p95 \(sorted[Int(Double(sorted.count) * 0.95)]) m, max \(sorted.last ?? 0) m")
        // One fix per round: 50 rounds of the four gateways in 10 s.
        #expect(errors.count >= 49)
        #expect(mean < 0.1)
        #expect(sorted[Int(Double(sorted.count) * 0.95)] < 0.15)
    }
}
