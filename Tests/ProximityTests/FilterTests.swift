import Foundation
import Proximity
import Testing
import TestSupport

/// Filters against synthetic tracks with deterministic noise: Gaussian σ = 8 cm at 5 Hz, plus 4 %
/// outliers of +1.5…4 m (NLOS reflections), on a walk-up 12 m → 0.5 m at 1.2 m/s, a 5 s hold and a
/// walk-away. RMS error against the true distance, raw vs filtered.
@Suite struct FilterTests {
    struct Track {
        var times: [Double] = []
        var truth: [Double] = []
        var measured: [Double] = []
    }

    static func walkUpTrack(seed: UInt64, outliers: Double = 0.04) -> Track {
        var noise = SeededNoise(seed: seed)
        var track = Track()
        let dt = 0.2, speed = 1.2
        let inTime = (12 - 0.5) / speed, hold = 5.0
        var t = 0.0
        while t <= 2 * inTime + hold {
            let d = t < inTime ? 12 - speed * t : t < inTime + hold ? 0.5 : 0.5 + speed * (t - inTime - hold)
            var z = d + noise.gaussian(sigma: 0.08)
            if noise.uniform() < outliers { z += 1.5 + 2.5 * noise.uniform() }
            track.times.append(1_800_000_000 + t)
            track.truth.append(d)
            track.measured.append(z)
            t += dt
        }
        return track
    }

    static func rms(_ a: [Double], _ b: [Double]) -> Double {
        (zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +) / Double(a.count)).squareRoot()
    }

    static func run(_ settings: FilterSettings, _ track: Track) -> [Double] {
        var filter = DistanceFilter(settings)
        return zip(track.measured, track.times).map { filter.update($0, at: $1) }
    }

    @Test(arguments: [FilterSettings.Kind.kalman, .oneEuro])
    func errorReduction(kind: FilterSettings.Kind) {
        var raws: [Double] = [], filtered: [Double] = []
        for seed: UInt64 in 1...5 {
            let track = Self.walkUpTrack(seed: seed)
            raws.append(Self.rms(track.measured, track.truth))
            filtered.append(Self.rms(Self.run(FilterSettings(kind: kind, maxSpeed: 3), track), track.truth))
        }
        let raw = raws.reduce(0, +) / 5, out = filtered.reduce(0, +) / 5
        print("filter \(kind.rawValue): RMS raw \(String(format: "%.3f", raw)) m → filtered \(String(format: "%.3f", out)) m (\(String(format: "%.0f", 100 * (1 - out / raw)))% less)")
        #expect(out < raw / 3, "outliers must not be followed")
    }

    @Test func errorReductionWithoutOutliers() {
        let track = Self.walkUpTrack(seed: 7, outliers: 0)
        let raw = Self.rms(track.measured, track.truth)
        for kind in [FilterSettings.Kind.kalman, .oneEuro] {
            let out = Self.rms(Self.run(FilterSettings(kind: kind), track), track.truth)
            print("filter \(kind.rawValue), Gaussian noise only: RMS raw \(String(format: "%.3f", raw)) m → filtered \(String(format: "%.3f", out)) m")
            #expect(out < raw)
        }
        #expect(Self.rms(Self.run(FilterSettings(kind: .none), track), track.truth) == raw)
    }

    @Test(arguments: [FilterSettings.Kind.kalman, .oneEuro])
    func singleOutlierIsNotFollowed(kind: FilterSettings.Kind) {
        var filter = DistanceFilter(FilterSettings(kind: kind, maxSpeed: 3))
        var t = 0.0
        for _ in 0..<20 { _ = filter.update(2.0, at: t); t += 0.2 }
        let spike = filter.update(6.0, at: t)
        #expect(abs(spike - 2.0) < 0.05)
        t += 0.2
        #expect(abs(filter.update(2.0, at: t) - 2.0) < 0.05)
    }

    /// A real jump (the peer was hidden, then reappears elsewhere) persists and is accepted on the third
    /// consistent measurement.
    @Test(arguments: [FilterSettings.Kind.kalman, .oneEuro])
    func persistentJumpIsAccepted(kind: FilterSettings.Kind) {
        var filter = DistanceFilter(FilterSettings(kind: kind, maxSpeed: 3))
        var t = 0.0
        for _ in 0..<20 { _ = filter.update(2.0, at: t); t += 0.2 }
        let outs = (0..<3).map { i in filter.update(6.0, at: t + 0.2 * Double(i)) }
        #expect(abs(outs[0] - 2) < 0.05 && abs(outs[1] - 2) < 0.1)
        #expect(abs(outs[2] - 6) < 0.01)
    }

    /// After a second of silence the next measurement is taken whatever it is.
    @Test func jumpAfterTimeoutIsAccepted() {
        var filter = DistanceFilter(FilterSettings(kind: .kalman, maxSpeed: 3))
        for i in 0..<10 { _ = filter.update(2.0, at: Double(i) * 0.2) }
        #expect(abs(filter.update(9.0, at: 1.8 + 1.5) - 9) < 0.1)
    }

    @Test func kalmanFollowsWalkingWithLittleLag() {
        var filter = KalmanDistanceFilter(maxSpeed: 3)
        var out = 0.0
        for i in 0...30 { out = filter.update(10 - 1.2 * Double(i) * 0.2, at: Double(i) * 0.2) }
        #expect(abs(out - (10 - 1.2 * 6)) < 0.05)
        #expect(abs((filter.velocity ?? 0) + 1.2) < 0.05)
    }

    @Test func repeatedTimestampsDoNotTrap() {
        var k = DistanceFilter(FilterSettings(kind: .kalman))
        var e = DistanceFilter(FilterSettings(kind: .oneEuro))
        for _ in 0..<5 {
            #expect(k.update(1.0, at: 5).isFinite)
            #expect(e.update(1.0, at: 5).isFinite)
        }
        #expect(k.update(1.0, at: 4).isFinite && e.update(1.0, at: 4).isFinite)
    }
}
