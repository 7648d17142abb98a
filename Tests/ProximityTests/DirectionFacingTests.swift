import Proximity
import Testing

@Suite struct DirectionFacingTests {
    static let facing30 = """
        facing:
          tolerance_deg: 30
          cues: {gained: {sound: lock}, holding: {haptic: pulse}, lost: {sound: unlock}}

        """

    @Test func directionAndFacingTransitions() throws {
        var drive = Drive(try unfiltered(Self.facing30), peers: [anna], aoa: true)
        drive.measure(anna, 2, at: 0, azimuth: 10)            // available, facing
        drive.measure(anna, 2, at: 0.2, azimuth: -30)         // still facing (at the tolerance)
        drive.measure(anna, 2, at: 0.4, azimuth: 40)          // not facing
        drive.measure(anna, 2, at: 0.6, azimuth: 20, fom: 30) // FOM too low: unavailable, facing null (was false: no event)
        drive.measure(anna, 2, at: 0.8, azimuth: 20, fom: 80) // available again, facing
        drive.tick(at: 1.2)                                   // 0.4 s old: still fresh
        drive.tick(at: 1.31)                                  // older than 500 ms: stale
        #expect(drive.eventLines() == [
            "direction_available \"unavailable\"→\"available\"", "facing_gained null→true",
            "facing_lost true→false",
            "direction_unavailable \"available\"→\"unavailable\"",
            "direction_available \"unavailable\"→\"available\"", "facing_gained null→true",
            "direction_unavailable \"available\"→\"unavailable\"", "facing_lost true→null",
        ])
        let e = drive.events
        #expect(e[1].cue?.json == #"{"sound": "lock"}"# && e[2].cue?.json == #"{"sound": "unlock"}"#)
        #expect(e[2].reason == EventReason(toleranceDeg: 30, azimuthDeg: 40))
        #expect(e[3].reason.cause == "low_fom" && e[6].reason.cause == "stale")
        #expect(e[7].reason.cause == "direction_unavailable" && e[7].ts == 1.31)
        // Feedback carries the holding cue only while facing; none at 0.6, where no rule is active
        // (no stage, no approach, and facing cannot be evaluated).
        #expect(drive.feedback.map(\.facing) == [true, true, false, true])
        #expect(drive.feedback.map { $0.cue?.json } == [#"{"haptic": "pulse"}"#, #"{"haptic": "pulse"}"#, nil, #"{"haptic": "pulse"}"#])
        let state = try #require(drive.engine.state(of: anna, at: 1.31))
        #expect(!state.directionAvailable && state.azimuthDeg == nil && state.facing == nil)
    }

    /// A failed measurement does not refresh the angle, and a measurement without an angle makes the
    /// direction unavailable at once: the previous angle is never carried forward.
    @Test func missingAngleIsNullNotTheLastOne() throws {
        var drive = Drive(try unfiltered(Self.facing30), peers: [anna], aoa: true)
        drive.measure(anna, 2, at: 0, azimuth: 10)
        drive.fail(anna, at: 0.2)
        #expect(drive.engine.state(of: anna, at: 0.2)?.azimuthDeg == 10)
        drive.measure(anna, 2, at: 0.4)
        let state = try #require(drive.engine.state(of: anna, at: 0.4))
        #expect(state.azimuthDeg == nil && !state.directionAvailable && state.facing == nil)
    }

    @Test func deviceWithoutAoAKeepsDirectionUnavailable() throws {
        var drive = Drive(try unfiltered(Self.facing30), peers: [anna], aoa: false)
        drive.measure(anna, 2, at: 0, azimuth: 0, elevation: 0)
        #expect(drive.events.isEmpty && drive.positions.isEmpty)
        let state = try #require(drive.engine.state(of: anna, at: 0))
        #expect(!state.directionAvailable && state.azimuthDeg == nil && state.facing == nil)
    }

    /// With `tolerance_deg: stage` the tolerance narrows as the peer comes closer.
    @Test func stageToleranceNarrows() throws {
        var drive = Drive(try StageTests.exampleUnfiltered, peers: [cart], aoa: true)
        drive.measure(cart, 5, at: 0, azimuth: 30)    // point: 35°
        drive.measure(cart, 0.5, at: 0.2, azimuth: 30) // reach: 15°
        drive.measure(cart, 0.5, at: 0.4, azimuth: 10)
        #expect(drive.eventLines([.facingGained, .facingLost]) == ["facing_gained null→true", "facing_lost true→false", "facing_gained false→true"])
        #expect(drive.events.first { $0.type == .facingGained }?.cue?.json == #"{"sound": "direction-lock", "haptic": "snap"}"#)
    }
}
