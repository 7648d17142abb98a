import Vocabulary
import SiteFusion
import Testing

/// Ranges combine per gateway within the window that ends at the newest range; stale ones stay out.
@Suite struct RangeWindowTests {
    func range(_ gw: String, _ d: Double, _ t: Double) -> GatewayRange {
        GatewayRange(peer: "cart", gateway: gw, distanceM: d, time: t)
    }

    @Test func newestPerGatewayWithinTheWindow() {
        var window = RangeWindow()
        window.insert(range("a", 1, 10.00))
        window.insert(range("b", 2, 10.05))
        window.insert(range("c", 3, 9.80))   // stale: 0.34 s before the newest
        window.insert(range("a", 1.1, 10.10))
        window.insert(range("d", 4, 10.16))
        window.insert(range("b", 9, 10.01))  // late and older than b's newest: ignored
        let combined = window.combined(window: 0.15)
        #expect(combined.map(\.gateway) == ["a", "b", "d"])
        #expect(combined.map(\.distanceM) == [1.1, 2, 4])
        #expect(window.combined(window: 0.05).map(\.gateway) == ["d"])
        #expect(window.combined(window: 1).map(\.gateway) == ["a", "b", "c", "d"])
    }

    @Test func edgeOfTheWindowIsIncluded() {
        var window = RangeWindow()
        window.insert(range("a", 1, 0.1))
        window.insert(range("b", 1, 0.25))
        #expect(window.combined(window: 0.15).count == 2)
        #expect(window.combined(endingAt: 0.1, window: 0.15).map(\.gateway) == ["a"])
    }

    /// Through the tracker: a stale, wildly wrong range from a fourth gateway is not used.
    @Test func staleRangeIsExcludedFromTheFix() throws {
        var tracker = FusionTracker(settings: FusionSettings(window: 0.15, tagHeight: 1))
        for (id, p) in SyntheticSite.square { tracker.updateGateway(id, position: p, online: true) }
        let tag = SitePoint(x: 2, y: 3, z: 1)
        _ = tracker.ingest(GatewayRange(peer: "cart", gateway: "gw-d", distanceM: 9, time: 0.0))
        var outputs: [FusionOutput] = []
        for (i, (id, p)) in SyntheticSite.square.prefix(3).enumerated() {
            outputs += tracker.ingest(GatewayRange(peer: "cart", gateway: id, distanceM: tag.distance(to: p), time: 0.5 + 0.05 * Double(i)))
        }
        let positions = outputs.compactMap { if case .position(let p) = $0 { p } else { nil } }
        #expect(positions.count == 1)
        let fix = try #require(positions.first)
        #expect(fix.gateways == ["gw-a", "gw-b", "gw-c"])
        #expect(abs(fix.x - 2) < 0.01 && abs(fix.y - 3) < 0.01)
        #expect(fix.ts == 0.6)
    }
}
