import Proximity
import Testing

@Suite struct ReplaceRulesTests {
    @Test func identicalRulesChangeNothing() throws {
        let r = try StageTests.exampleUnfiltered
        var drive = Drive(r, peers: [anna])
        for i in 0..<3 { drive.measure(anna, 0.5, at: Double(i) * 0.2) }
        let before = drive.engine.state(of: anna, at: 1)
        #expect(drive.engine.replaceRules(r, at: 1).isEmpty)
        #expect(drive.engine.state(of: anna, at: 1) == before)
    }

    @Test func removedAndMovedRules() throws {
        var drive = Drive(try StageTests.exampleUnfiltered, peers: [anna])
        for i in 0..<3 { drive.measure(anna, 0.5, at: Double(i) * 0.2) }
        drive.outputs = []
        let new = try unfiltered("""
            zones: [{name: desk, enter_within: 1, exit_beyond: 2}]
            stages:
              bands:
                - {name: far, beyond: 3}
                - {name: reach, beyond: 0.4}
                - {name: touch}
            approaches: [{name: handoff, start_within: 0.4, confirm_within: 0.1, cancel_beyond: 0.45}]

            """)
        drive.outputs = drive.engine.replaceRules(new, at: 1)
        // counter is gone (exit, rules_changed); desk is new and entered; the stage is carried by name and
        // re-evaluated; the ready approach is carried, and 0.5 m is beyond its new cancel_beyond.
        #expect(drive.eventLines() == [
            "zone_exit counter \"inside\"→\"outside\"",
            "zone_enter desk \"outside\"→\"inside\"",
            "approach_canceled handoff \"ready\"→\"idle\"",
        ])
        #expect(drive.events[0].reason.cause == "rules_changed")
        let state = try #require(drive.engine.state(of: anna, at: 1))
        #expect(state.zones == ["desk"] && state.stage == "reach")
        // A vanished band: stage_change from the old name.
        drive.outputs = drive.engine.replaceRules(try unfiltered("stages: {bands: [{name: near}]}\n"), at: 2)
        #expect(drive.eventLines([.stageChange]) == ["stage_change \"reach\"→\"near\""])
    }

    /// The filter survives a reload that keeps its settings: no restart from the next measurement.
    @Test func filterStateIsKept() throws {
        let kalman = try rules("version: 1\n")
        var drive = Drive(kalman, peers: [anna])
        for i in 0..<20 { drive.measure(anna, 2, at: Double(i) * 0.2) }
        _ = drive.engine.replaceRules(try rules("version: 1\nzones: [{name: z, enter_within: 1, exit_beyond: 2}]\n"), at: 4)
        drive.measure(anna, 6, at: 4.2)  // an outlier for the kept filter
        #expect(abs((drive.engine.state(of: anna, at: 4.2)?.distanceM ?? 0) - 2) < 0.05)
    }
}
