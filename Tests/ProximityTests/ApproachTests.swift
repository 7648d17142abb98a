import Proximity
import Testing

@Suite struct ApproachTests {
    static let handoff = "approaches: [{name: handoff, peers: [\"phone-*\"], start_within: 0.6, confirm_within: 0.12, cancel_beyond: 0.7}]\n"

    @Test(arguments: [
        ([1.0, 0.61], [], "idle"),
        ([1.0, 0.6], ["approach_ready handoff \"idle\"→\"ready\""], "ready"),
        ([1.0, 0.6, 0.65, 0.7], ["approach_ready handoff \"idle\"→\"ready\""], "ready"),
        ([1.0, 0.6, 0.71], ["approach_ready handoff \"idle\"→\"ready\"", "approach_canceled handoff \"ready\"→\"idle\""], "idle"),
        ([0.5, 0.12], ["approach_ready handoff \"idle\"→\"ready\"", "approach_completed handoff \"ready\"→\"completed\""], "completed"),
        ([1.0, 0.1], ["approach_ready handoff \"idle\"→\"ready\"", "approach_completed handoff \"ready\"→\"completed\""], "completed"),
        // Completed fires once: no cancel, no second completion until the peer leaves beyond start_within.
        ([0.5, 0.1, 0.05, 0.5, 0.6, 0.1, 0.6, 0.3, 0.1], ["approach_ready handoff \"idle\"→\"ready\"",
          "approach_completed handoff \"ready\"→\"completed\""], "completed"),
        // Cancel, then re-arm and complete.
        ([0.5, 0.8, 0.55, 0.1], ["approach_ready handoff \"idle\"→\"ready\"", "approach_canceled handoff \"ready\"→\"idle\"",
          "approach_ready handoff \"idle\"→\"ready\"", "approach_completed handoff \"ready\"→\"completed\""], "completed"),
        // Completed, leave beyond start (re-armed, no event), come back: a second completion.
        ([0.1, 0.61, 0.5, 0.1], ["approach_ready handoff \"idle\"→\"ready\"", "approach_completed handoff \"ready\"→\"completed\"",
          "approach_ready handoff \"idle\"→\"ready\"", "approach_completed handoff \"ready\"→\"completed\""], "completed"),
    ] as [([Double], [String], String)])
    func phases(distances: [Double], expected: [String], phase: String) throws {
        var drive = Drive(try unfiltered(Self.handoff))
        for (i, d) in distances.enumerated() { drive.measure(anna, d, at: Double(i) * 0.2) }
        #expect(drive.eventLines() == expected)
        #expect(drive.engine.state(of: anna, at: 9)?.approaches.map(\.phase.rawValue) == [phase])
    }

    @Test func progressRunsFromStartToConfirm() throws {
        var drive = Drive(try unfiltered(Self.handoff), peers: [anna])
        for (i, d) in [0.6, 0.36, 0.12].enumerated() { drive.measure(anna, d, at: Double(i)) }
        #expect(zip(drive.feedback.map(\.progress), [0, 0.5, 1]).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(drive.engine.state(of: anna, at: 3)?.approaches.first?.progress == 1)
    }

    @Test func onlySelectedPeers() throws {
        var drive = Drive(try unfiltered(Self.handoff))
        drive.measure(cart, 0.1, at: 0)
        #expect(drive.events.isEmpty)
        #expect(drive.engine.state(of: cart, at: 0)?.approaches == [])
    }
}
