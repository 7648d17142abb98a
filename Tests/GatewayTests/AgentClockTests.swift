import Testing
@testable import Gateway

/// The agent's time from readings of the two clocks.
@Suite struct AgentClockTests {
    @Test func followsAWellBehavedWallClockExactly() {
        var clock = AgentClock()
        for step in 0..<100 {
            let mono = 50 + Double(step) * 0.1
            let wall = 1_800_000_000.123456 + Double(step) * 0.1
            #expect(clock.time(monotonic: mono, wall: wall) == (wall, false))
        }
    }

    @Test func readingsMicrosecondsApartFollowTheWallClockExactly() {
        var clock = AgentClock()
        var previous = -Double.infinity
        for step in 0..<1000 {
            let mono = 50 + Double(step) * 0.01
            let wall = 1_800_000_000 + Double(step) * 0.01 + Double((step * 7919) % 13) * 1e-6
            let time = clock.time(monotonic: mono, wall: wall).time
            #expect(time == max(wall, previous))
            previous = time
        }
    }

    @Test func aStepForwardIsFollowedAndReported() {
        var clock = AgentClock()
        _ = clock.time(monotonic: 10, wall: 1000)
        #expect(clock.time(monotonic: 10.1, wall: 1000.1) == (1000.1, false))
        #expect(clock.time(monotonic: 10.2, wall: 4600.2) == (4600.2, true))
        #expect(clock.time(monotonic: 10.3, wall: 4600.3) == (4600.3, false))
    }

    @Test func aStepBackwardNeverRunsTimeBackwardsAndIsCaughtUpSlowly() {
        var clock = AgentClock()
        _ = clock.time(monotonic: 10, wall: 1000)
        // The wall clock goes back 2 s: the agent's time keeps going at the monotonic pace.
        var previous = clock.time(monotonic: 11, wall: 1001).time
        var mono = 11.0
        var wall = 999.0
        var caughtUp: Double?
        while mono < 1000 {
            mono += 1
            wall += 1
            let (time, stepped) = clock.time(monotonic: mono, wall: wall)
            #expect(!stepped)
            #expect(time > previous)
            #expect(time - previous >= 1 - AgentClock.slewRate - 1e-9)
            previous = time
            if time == wall, caughtUp == nil { caughtUp = mono }
        }
        // 2 s at 5 ms a second: 400 s.
        #expect(caughtUp.map { abs($0 - 411) <= 1 } == true, "\(String(describing: caughtUp))")
    }
}
