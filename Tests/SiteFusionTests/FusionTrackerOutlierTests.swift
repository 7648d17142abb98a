import Vocabulary
import SiteFusion
import Testing
import TestSupport

/// The run, through the tracker with default settings: four gateways in the 8 m × 6 m
/// hall, each ranging every 200 ms (the agent's default) on its own phase with a few milliseconds
/// of time-stamp jitter, 5 cm noise, one tag walking at 0.8 m/s and one standing, and every 2 s a
/// half-second burst of unflagged ranges 0.9 m long on one gateway, each gateway in turn.
@Suite struct FusionTrackerOutlierTests {
    static let phases = [0.0, 0.047, 0.113, 0.171]

    /// A loop around the hall at 0.8 m/s: (1, 1) → (7, 1) → (7, 5) → (1, 5) → (1, 1), 20 m.
    static func walking(_ t: Double) -> SitePoint {
        let corners = [(1.0, 1.0), (7.0, 1.0), (7.0, 5.0), (1.0, 5.0), (1.0, 1.0)]
        var s = (t * 0.8).truncatingRemainder(dividingBy: 20)
        for (a, b) in zip(corners, corners.dropFirst()) {
            let length = abs(b.0 - a.0) + abs(b.1 - a.1)
            if s <= length {
                let f = s / length
                return SitePoint(x: a.0 + (b.0 - a.0) * f, y: a.1 + (b.1 - a.1) * f, z: 1)
            }
            s -= length
        }
        return SitePoint(x: 1, y: 1, z: 1)
    }

    static func standing(_: Double) -> SitePoint { SitePoint(x: 5.2, y: 2.3, z: 1) }

    struct Run {
        var statistics = FixStatistics()
        var ranges = 0
        var positions = 0
        var goodRangesLeftOut = 0
    }

    static func run(path: (Double) -> SitePoint, seconds: Double, seed: UInt64) -> Run {
        var tracker = FusionTracker(settings: FusionSettings(tagHeight: 1))
        for (id, p) in SyntheticSite.hall { tracker.updateGateway(id, position: p, online: true) }
        var noise = SeededNoise(seed: seed)
        // Every gateway's rounds, in time order.
        var rounds: [(time: Double, gateway: Int)] = []
        for (g, phase) in phases.enumerated() {
            var t = phase
            while t < seconds {
                rounds.append((t + noise.gaussian(sigma: 0.003), g))
                t += 0.2
            }
        }
        rounds.sort { $0.time < $1.time }
        var run = Run()
        for (time, g) in rounds {
            // Every 2 s, from 1 s on, half a second of one gateway reading 0.9 m long.
            let cycle = Int(time / 2)
            let outlier = time >= 1 && time.truncatingRemainder(dividingBy: 2) >= 1 && time.truncatingRemainder(dividingBy: 2) < 1.5
                && cycle % 4 == g
            let (id, position) = SyntheticSite.hall[g]
            let distance = path(time).distance(to: position) + noise.gaussian(sigma: 0.05) + (outlier ? 0.9 : 0)
            let outputs = tracker.ingest(GatewayRange(peer: "tag", gateway: id, distanceM: distance, time: time))
            // The first round of the four gateways is still gathering ranges.
            guard time >= 0.2 else { continue }
            run.ranges += 1
            guard let fix = outputs.compactMap({ if case .position(let p) = $0 { p } else { nil } }).first else { continue }
            run.positions += 1
            if !outlier && !fix.gateways.contains(id) { run.goodRangesLeftOut += 1 }
            let truth = path(fix.ts)
            let error = ((fix.x - truth.x) * (fix.x - truth.x) + (fix.y - truth.y) * (fix.y - truth.y)).squareRoot()
            run.statistics.record(error: error, accuracy: fix.accuracyM)
        }
        return run
    }

    @Test(arguments: [("walking", 1 as UInt64), ("standing", 2)])
    func unflaggedOutlierBurstsWithDefaultSettings(tag: String, seed: UInt64) {
        let run = Self.run(path: tag == "walking" ? Self.walking : Self.standing, seconds: 40, seed: seed)
        let s = run.statistics
        print("tracker, hall, \(tag) tag, 0.9 m bursts: \(run.ranges) ranges, \(run.positions) positions, "
              + "\(run.goodRangesLeftOut) good ranges left out; \(s)")
        // One position per round of the four gateways (every 200 ms from 0.2 s to 40 s).
        #expect((193...199).contains(run.positions), "\(run.positions)")
        #expect(s.median <= 0.06)
        #expect(s.claimingAThird(errorAbove: 0.3).isEmpty, "\(s.claimingAThird(errorAbove: 0.3).prefix(5))")
        #expect(s.confident(errorAbove: 0.3, claimBelow: 0.1).isEmpty)
        #expect(s.withinTwiceAccuracy >= 0.95)
    }
}
