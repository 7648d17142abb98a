import Proximity
import Testing
import TestSupport

@Suite struct ZoneTests {
    static let zoneRules = "zones: [{name: desk, enter_within: 1.0, exit_beyond: 1.3}]\n"

    /// Every crossing in both directions, no dwell: inside at or below enter_within, outside only
    /// beyond exit_beyond.
    @Test(arguments: [
        ([2.0, 1.01], []),
        ([2.0, 1.0], ["zone_enter desk \"outside\"→\"inside\""]),
        ([2.0, 1.0, 1.2, 1.3], ["zone_enter desk \"outside\"→\"inside\""]),
        ([2.0, 1.0, 1.31], ["zone_enter desk \"outside\"→\"inside\"", "zone_exit desk \"inside\"→\"outside\""]),
        ([0.5, 1.31, 1.1, 1.0], ["zone_enter desk \"outside\"→\"inside\"", "zone_exit desk \"inside\"→\"outside\"",
                                 "zone_enter desk \"outside\"→\"inside\""]),
    ] as [([Double], [String])])
    func thresholds(distances: [Double], expected: [String]) throws {
        var drive = Drive(try unfiltered(Self.zoneRules))
        for (i, d) in distances.enumerated() { drive.measure(cart, d, at: Double(i) * 0.2) }
        #expect(drive.eventLines() == expected)
    }

    @Test func reasonCarriesThresholdAndDwell() throws {
        var drive = Drive(try unfiltered("zones: [{name: desk, enter_within: 1.0, exit_beyond: 1.3, dwell: 300ms}]\n"))
        drive.measure(cart, 0.9, at: 100.0)
        drive.measure(cart, 0.9, at: 100.2)
        #expect(drive.events.isEmpty)
        drive.measure(cart, 0.9, at: 100.3)
        let enter = try #require(drive.events.first)
        #expect(enter.type == .zoneEnter && enter.ts == 100.3 && enter.distanceM == 0.9)
        #expect(enter.reason == EventReason(thresholdM: 1.0, dwellMs: 300, crossedAt: 100.0))
        #expect(enter.reason.value { .double($0) }.json == #"{"threshold_m": 1.0, "dwell_ms": 300, "crossed_at": 100.0}"#)
        #expect(drive.engine.state(of: cart, at: 100.3)?.zones == ["desk"])
    }

    /// A change that reverts within the dwell fires nothing; one that holds fires once.
    @Test func dwellSuppressesShortExcursions() throws {
        var drive = Drive(try unfiltered("zones: [{name: desk, enter_within: 1.0, exit_beyond: 1.3, dwell: 1s}]\n"))
        let track: [(Double, Double)] = [(0, 2), (1, 0.9), (1.5, 0.9), (1.9, 1.1), (2, 0.9), (2.5, 0.9), (2.99, 0.9), (3, 0.9),
                                         (4, 1.5), (4.5, 1.2), (5, 1.5), (5.9, 1.5), (6.0, 1.5)]
        for (t, d) in track { drive.measure(cart, d, at: t) }
        #expect(drive.events.map(\.type) == [.zoneEnter, .zoneExit])
        #expect(drive.events.map(\.ts) == [3, 6])
        #expect(drive.events.map(\.reason.crossedAt) == [2, 5])
    }

    /// The dwell also completes on a tick, when no measurement contradicted the change.
    @Test func dwellCompletesOnTick() throws {
        var drive = Drive(try unfiltered("zones: [{name: desk, enter_within: 1.0, exit_beyond: 1.3, dwell: 500ms}]\n"))
        drive.measure(cart, 0.5, at: 10)
        drive.tick(at: 10.4)
        #expect(drive.events.isEmpty)
        drive.tick(at: 10.5)
        #expect(drive.eventLines() == ["zone_enter desk \"outside\"→\"inside\""])
        #expect(drive.events[0].ts == 10.5 && drive.events[0].reason.crossedAt == 10)
    }

    /// A person hovering at each threshold with UWB noise (σ 8 cm), through the Kalman filter: exactly
    /// one enter and one exit.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func noNoisyFlapping(seed: UInt64) throws {
        var drive = Drive(try rules("version: 1\nzones: [{name: desk, enter_within: 1.0, exit_beyond: 1.3, dwell: 300ms}]\n"))
        var noise = SeededNoise(seed: seed)
        var t = 0.0
        func walk(_ from: Double, _ to: Double, seconds: Double) {
            let steps = Int(seconds / 0.2)
            for i in 0..<steps {
                let d = from + (to - from) * Double(i) / Double(steps)
                drive.measure(cart, d + noise.gaussian(sigma: 0.08), at: t)
                t += 0.2
            }
        }
        walk(3, 1.0, seconds: 2)
        walk(1.0, 1.0, seconds: 10)  // hover at enter_within
        walk(1.0, 0.5, seconds: 1)
        walk(0.5, 0.5, seconds: 2)
        walk(0.5, 1.3, seconds: 1)
        walk(1.3, 1.3, seconds: 10)  // hover at exit_beyond
        walk(1.3, 3, seconds: 2)
        walk(3, 3, seconds: 2)
        #expect(drive.events.map(\.type) == [.zoneEnter, .zoneExit])
    }

    @Test func zoneSelectsItsPeers() throws {
        var drive = Drive(try unfiltered("zones: [{name: desk, peers: [\"phone-*\"], enter_within: 1.0, exit_beyond: 1.3}]\n"))
        drive.measure(cart, 0.5, at: 0)
        drive.measure(anna, 0.5, at: 0)
        #expect(drive.events.map(\.peer) == [anna])
    }
}
