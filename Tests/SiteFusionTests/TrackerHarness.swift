import Vocabulary
import SiteFusion
import TestSupport

/// Drives a ``FusionTracker`` the way the service will: four gateways ranging one tag at 5 Hz each,
/// staggered by 50 ms (so a window of 150 ms holds one range per gateway), ticks every 100 ms.
struct TrackerHarness {
    var tracker: FusionTracker
    var outputs: [FusionOutput] = []
    var noise: SeededNoise
    var rangeNoise: Double

    init(zones: [PolygonZone] = [], tagHeight: Double? = 1, rangeNoise: Double = 0, seed: UInt64 = 1,
         gateways: [(String, SitePoint)] = SyntheticSite.square) {
        tracker = FusionTracker(settings: FusionSettings(window: 0.15, tagHeight: tagHeight, positionLostAfter: 2), zones: zones)
        for (id, p) in gateways { tracker.updateGateway(id, position: p, online: true) }
        noise = SeededNoise(seed: seed)
        self.rangeNoise = rangeNoise
    }

    /// Runs from `start` to `end` (seconds) with the tag at `path(t)`; `ranging(t, gateway)` decides
    /// which gateways hear it.
    mutating func run(from start: Double, to end: Double, peer: String = "cart", path: (Double) -> SitePoint,
                      ranging: (Double, String) -> Bool = { _, _ in true }) {
        let gateways = SyntheticSite.square
        var step = Int((start / 0.05).rounded())
        while Double(step) * 0.05 < end - 1e-9 {
            let t = Double(step) * 0.05
            let (id, position) = gateways[step % gateways.count]
            if ranging(t, id) {
                let d = max(0, path(t).distance(to: position) + noise.gaussian(sigma: rangeNoise))
                outputs += tracker.ingest(GatewayRange(peer: peer, gateway: id, distanceM: d, time: t))
            }
            if step % 2 == 1 { outputs += tracker.tick(at: t + 0.05) }
            step += 1
        }
    }

    var events: [SiteEvent] { outputs.compactMap { if case .event(let e) = $0 { e } else { nil } } }
    var positions: [SiteFix] { outputs.compactMap { if case .position(let p) = $0 { p } else { nil } } }
    var states: [SitePeerState] { outputs.compactMap { if case .state(let s) = $0 { s } else { nil } } }
}
