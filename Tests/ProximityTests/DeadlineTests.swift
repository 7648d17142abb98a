import Proximity
import Testing

/// The engine's next deadline, which the agent sleeps until instead of ticking at a fixed rate:
/// nothing while no peer ranges, the earliest of a pending dwell, an ageing angle and signal loss
/// otherwise, and a tick at the deadline does what fell due (so the agent never wakes for nothing
/// twice in a row).
@Suite struct DeadlineTests {
    @Test func noDeadlineWhileNoPeerRanges() throws {
        var drive = Drive(try unfiltered(ZoneTests.zoneRules))
        #expect(drive.engine.nextDeadline == nil)
        drive.measure(cart, 2, at: 10)
        drive.tick(at: 12)
        #expect(drive.eventLines() == ["signal_lost \"ranging\"→\"lost\""])
        #expect(drive.engine.nextDeadline == nil)
    }

    @Test func aMeasurementMovesTheSignalLossDeadline() throws {
        var drive = Drive(try unfiltered(ZoneTests.zoneRules))
        drive.measure(cart, 2, at: 10)
        #expect(drive.engine.nextDeadline == 12)
        drive.measure(cart, 2, at: 10.5)
        #expect(drive.engine.nextDeadline == 12.5)
        drive.tick(at: 12.4)
        #expect(drive.events.isEmpty)
        drive.tick(at: try #require(drive.engine.nextDeadline))
        #expect(drive.eventLines() == ["signal_lost \"ranging\"→\"lost\""])
    }

    @Test func aPendingDwellComesFirst() throws {
        var drive = Drive(try unfiltered("zones: [{name: desk, enter_within: 1.0, exit_beyond: 1.3, dwell: 500ms}]\n"))
        drive.measure(cart, 0.5, at: 10)
        #expect(drive.engine.nextDeadline == 10.5)
        drive.tick(at: 10.5)
        #expect(drive.eventLines() == ["zone_enter desk \"outside\"→\"inside\""])
        #expect(drive.engine.nextDeadline == 12)
    }

    /// Angle, then loss, each ticked at exactly the deadline the engine gave; then none.
    @Test func eachDeadlineTickedAtActs() throws {
        var drive = try SignalLossTests.engaged()
        let aged = try #require(drive.engine.nextDeadline)
        #expect(abs(aged - 100.9) < 1e-5, "the angle of 100.4 ages past max_age 500 ms")
        drive.tick(at: aged)
        #expect(drive.events.map(\.type) == [.directionUnavailable, .facingLost])
        let lost = try #require(drive.engine.nextDeadline)
        #expect(lost == 102.4)
        drive.outputs = []
        drive.tick(at: lost)
        #expect(drive.events.first?.type == .signalLost)
        #expect(drive.engine.nextDeadline == nil)
    }

    /// A stall of the agent excuses the silence: the loss deadline moves with it.
    @Test func anExcusedSilenceMovesTheDeadline() throws {
        var drive = Drive(try unfiltered(ZoneTests.zoneRules))
        drive.measure(cart, 2, at: 10)
        drive.engine.excuseSilence(until: 15)
        #expect(drive.engine.nextDeadline == 17)
    }
}
