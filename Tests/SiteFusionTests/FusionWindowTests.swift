import SiteFusion
import Testing
import Vocabulary

/// The window follows the gateways' ranging interval as their status reports it, so that with
/// default settings every round of every gateway makes part of a position, at any interval.
@Suite struct FusionWindowTests {
    /// Four gateways ranging one still tag, each once per `interval`, staggered evenly.
    func positions(interval: Double, settings: FusionSettings, reported: Double?) -> (fixes: Int, rounds: Int, window: Double) {
        var tracker = FusionTracker(settings: settings)
        for (id, p) in SyntheticSite.square { tracker.updateGateway(id, position: p, online: true, rangingInterval: reported) }
        let tag = SitePoint(x: 2.5, y: 3, z: 1)
        var fixes = 0, rounds = 0
        for round in 0..<40 {
            rounds += 1
            for (index, (id, p)) in SyntheticSite.square.enumerated() {
                let t = Double(round) * interval + Double(index) * interval / 4
                let out = tracker.ingest(GatewayRange(peer: "cart", gateway: id, distanceM: tag.distance(to: p), time: t))
                fixes += out.filter { if case .position = $0 { true } else { false } }.count
            }
        }
        return (fixes, rounds, tracker.window)
    }

    @Test func theWindowFollowsTheSlowestReportedInterval() {
        let learning = FuseConfiguration(site: "s", tagHeight: 1).fusionSettings
        #expect(learning.windowFollowsGateways)
        // Gateways ranging every 500 ms: a 250 ms window would make a fix of only two or three
        // gateways' ranges; learned from their status it holds all four.
        let learned = positions(interval: 0.5, settings: learning, reported: 0.5)
        #expect(learned.window == 0.625)
        #expect(learned.fixes >= learned.rounds - 1, "every round after the first makes a position: \(learned.fixes) of \(learned.rounds)")
        #expect(learned.fixes <= learned.rounds + 1, "one position per round, not one per range: \(learned.fixes) of \(learned.rounds)")
        // A configured interval is kept whatever the gateways say.
        let configured = FuseConfiguration(site: "s", rangingInterval: TimeSpan(seconds: 0.2), tagHeight: 1).fusionSettings
        #expect(positions(interval: 0.5, settings: configured, reported: 0.5).window == 0.25)
        // Nothing reported: the agent's default.
        #expect(positions(interval: 0.2, settings: learning, reported: nil).window == 0.25)
    }

    @Test func anOfflineGatewaysIntervalDoesNotCount() {
        var tracker = FusionTracker(settings: FuseConfiguration(site: "s").fusionSettings)
        tracker.updateGateway("a", position: SitePoint(x: 0, y: 0, z: 2), online: true, rangingInterval: 0.2)
        tracker.updateGateway("b", position: SitePoint(x: 8, y: 0, z: 2), online: true, rangingInterval: 1.0)
        #expect(tracker.window == 1.25)
        tracker.updateGateway("b", position: SitePoint(x: 8, y: 0, z: 2), online: false, rangingInterval: 1.0)
        #expect(tracker.window == 0.25)
    }
}
