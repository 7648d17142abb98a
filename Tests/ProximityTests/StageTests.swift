import Proximity
import Testing
import RulesReading

@Suite struct StageTests {
    static var exampleUnfiltered: Rules {
        get throws {
            try rules(RulesFile.exampleYAML.replacingOccurrences(of: "kind: kalman", with: "kind: none"))
        }
    }

    /// locate > 10 m ≥ point > 1 m ≥ reach, hysteresis 0.2 m on every boundary.
    @Test(arguments: [
        ([12.0], ["null→\"locate\""]),
        ([12, 10.1, 9.9, 9.81], ["null→\"locate\""]),
        ([12, 9.8], ["null→\"locate\"", "\"locate\"→\"point\""]),
        ([9, 10.1, 10.2], ["null→\"point\""]),
        ([9, 10.21], ["null→\"point\"", "\"point\"→\"locate\""]),
        ([5, 0.9, 0.81], ["null→\"point\""]),
        ([5, 0.8], ["null→\"point\"", "\"point\"→\"reach\""]),
        ([0.5, 1.1, 1.2, 1.21], ["null→\"reach\"", "\"reach\"→\"point\""]),
        ([12, 0.5], ["null→\"locate\"", "\"locate\"→\"reach\""]),
        ([0.5, 20], ["null→\"reach\"", "\"reach\"→\"locate\""]),
    ] as [([Double], [String])])
    func bands(distances: [Double], expected: [String]) throws {
        var drive = Drive(try Self.exampleUnfiltered)
        for (i, d) in distances.enumerated() { drive.measure(cart, d, at: Double(i) * 0.2) }
        #expect(drive.events.filter { $0.type == .stageChange }.map { "\($0.from.json)→\($0.to.json)" } == expected)
    }

    @Test func stageChangeReasonNamesTheBoundary() throws {
        var drive = Drive(try Self.exampleUnfiltered)
        drive.measure(cart, 5, at: 0)
        drive.measure(cart, 0.7, at: 1)
        drive.measure(cart, 11, at: 2)
        #expect(drive.events.map(\.reason.thresholdM) == [nil, 1, 10])
    }

    /// Feedback: the band's attributes and closeness within the band.
    @Test func feedbackProgressAndAttributes() throws {
        var drive = Drive(try Self.exampleUnfiltered, peers: [cart])
        drive.measure(cart, 5.5, at: 0)
        drive.measure(cart, 0.25, at: 1)
        drive.measure(cart, 30, at: 2)
        let f = drive.feedback
        #expect(f.map(\.stage) == ["point", "reach", "locate"])
        #expect(abs(f[0].progress - 0.5) < 1e-9 && abs(f[1].progress - 0.75) < 1e-9 && f[2].progress == 0)
        #expect(f[1].attributes.value.json == #"{"facing_tolerance_deg": 15, "shows_distance": false}"#)
        #expect(f.allSatisfy { $0.facing == nil && $0.cue == nil })
    }

    @Test func noFeedbackWithoutStageApproachOrFacing() throws {
        var drive = Drive(try unfiltered("zones: [{name: desk, enter_within: 1.0, exit_beyond: 1.3}]\n"))
        drive.measure(cart, 0.5, at: 0)
        #expect(drive.feedback.isEmpty)
    }
}
