import Proximity
import Testing
import TestSupport
import RulesReading

/// The rules.md example end to end: phone-anna walks up from 12 m to 8 cm, holds, walks away to 12 m
/// (at 8 m the example's bands still say `point`, so the walk-away continues past 10.2 m), and then
/// the signal stops. Kalman filter, UWB noise σ 5 cm at 5 Hz, seeded.
@Suite struct WalkUpScenarioTests {
    @Test(arguments: [UInt64(11), 12, 13])
    func walkUp(seed: UInt64) throws {
        let rules = try RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml")
        var drive = Drive(rules, peers: [anna, cart])
        var noise = SeededNoise(seed: seed)
        var t = 1_800_000_000.0
        func walk(_ from: Double, _ to: Double, speed: Double) {
            let steps = max(1, Int(abs(to - from) / speed / 0.2))
            for i in 0...steps {
                drive.measure(anna, from + (to - from) * Double(i) / Double(steps) + noise.gaussian(sigma: 0.05), at: t)
                t += 0.2
            }
        }
        walk(12, 0.08, speed: 1.2)
        walk(0.08, 0.08, speed: 0.02)   // hold about 4 s
        walk(0.08, 12, speed: 1.2)
        walk(12, 12, speed: 0.2)
        let lastValid = t - 0.2
        drive.tick(at: t + 1)
        drive.tick(at: t + 2)
        #expect(drive.eventLines() == [
            "stage_change null→\"locate\"",
            "stage_change \"locate\"→\"point\"",
            "stage_change \"point\"→\"reach\"",
            "approach_ready handoff \"idle\"→\"ready\"",
            "zone_enter counter \"outside\"→\"inside\"",   // 300 ms after crossing 1.0 m, at walking speed
            "approach_completed handoff \"ready\"→\"completed\"",
            "stage_change \"reach\"→\"point\"",
            "zone_exit counter \"inside\"→\"outside\"",
            "stage_change \"point\"→\"locate\"",
            "signal_lost \"ranging\"→\"lost\"",
            "stage_change \"locate\"→null",
        ])
        let lost = try #require(drive.events.first { $0.type == .signalLost })
        #expect(lost.reason.cause == "timeout" && lost.reason.lastSeen == lastValid)
        // No event for tool-cart, which never ranged; the approach was for phone-* only.
        #expect(drive.events.allSatisfy { $0.peer == anna })
        // Zone events waited for the 300 ms dwell.
        let enter = try #require(drive.events.first { $0.type == .zoneEnter })
        #expect(enter.reason.dwellMs == 300 && enter.ts - enter.reason.crossedAt! >= 0.3 - 1e-9)
        // Feedback on every valid measurement (there is always a stage while ranging).
        #expect(drive.feedback.count == drive.outputs.filter { if case .state = $0 { false } else { true } }.count
                - drive.events.count - drive.rankings.count)
    }
}
