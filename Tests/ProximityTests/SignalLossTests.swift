import Proximity
import Testing

@Suite struct SignalLossTests {
    /// Puts anna in zone counter, stage reach, approach handoff ready, facing — then loses her.
    static func engaged() throws -> Drive {
        var drive = Drive(try StageTests.exampleUnfiltered, peers: [anna, cart], aoa: true)
        for i in 0..<3 { drive.measure(anna, 0.5, at: 100 + Double(i) * 0.2, azimuth: 5, elevation: 0) }
        let state = try #require(drive.engine.state(of: anna, at: 100.4))
        #expect(state.link == .ranging && state.zones == ["counter"] && state.stage == "reach")
        #expect(state.approaches.map(\.phase) == [.ready] && state.facing == true && state.directionAvailable)
        drive.outputs = []
        return drive
    }

    static let cleared = [
        "signal_lost \"ranging\"→\"lost\"", "zone_exit counter \"inside\"→\"outside\"", "stage_change \"reach\"→null",
        "approach_canceled handoff \"ready\"→\"idle\"", "facing_lost true→null", "direction_unavailable \"available\"→\"unavailable\"",
    ]

    static func expectCleared(_ drive: Drive, cause: String, at ts: Double) throws {
        #expect(drive.eventLines() == cleared)
        #expect(drive.events.allSatisfy { $0.reason.cause == cause && $0.ts == ts })
        #expect(drive.events[0].reason.lastSeen == 100.4 && drive.events[0].distanceM == 0.5)
        let state = try #require(drive.engine.state(of: anna, at: ts))
        #expect(state.link == .lost && state.lossCause?.rawValue == cause && state.distanceM == nil)
        #expect(state.zones.isEmpty && state.stage == nil && state.approaches.map(\.phase) == [.idle])
        #expect(state.facing == nil && !state.directionAvailable && state.azimuthDeg == nil)
        #expect(drive.states.last { $0.peer == anna }?.link == .lost)
    }

    @Test func timeout() throws {
        var drive = try Self.engaged()
        drive.tick(at: 102.3)
        #expect(drive.events.map(\.type) == [.directionUnavailable, .facingLost])  // the angle went stale first
        drive.outputs = []
        drive = try Self.engaged()
        drive.tick(at: 102.5)
        try Self.expectCleared(drive, cause: "timeout", at: 102.5)
    }

    /// The agent itself stalled from 100.5 to 105 (stopped, starved): the tag's measurements of
    /// that time are read in a burst afterwards. Its silence was the agent's: no loss.
    @Test func aStallOfTheAgentIsNotASignalLoss() throws {
        var drive = try Self.engaged()
        drive.engine.excuseSilence(until: 105)
        drive.tick(at: 105)
        drive.measure(anna, 0.5, at: 105.01, azimuth: 5, elevation: 0)
        drive.tick(at: 106)
        #expect(!drive.events.contains { $0.type == .signalLost }, "\(drive.eventLines())")
        // A tag that really went away is still lost, signal_lost_after after the stall.
        var gone = try Self.engaged()
        gone.engine.excuseSilence(until: 105)
        gone.tick(at: 106.9)
        #expect(!gone.events.contains { $0.type == .signalLost })
        gone.tick(at: 107)
        #expect(gone.events.contains { $0.type == .signalLost && $0.reason.lastSeen == 100.4 })
    }

    @Test func measurementErrors() throws {
        var drive = try Self.engaged()
        for i in 1...9 { drive.fail(anna, at: 100.4 + Double(i) * 0.2) }
        #expect(drive.events.isEmpty)
        drive.fail(anna, at: 102.5)
        try Self.expectCleared(drive, cause: "measurement_errors", at: 102.5)
    }

    @Test func measurementErrorsNoticedByTick() throws {
        var drive = try Self.engaged()
        drive.fail(anna, at: 101)
        drive.tick(at: 102.5)
        try Self.expectCleared(drive, cause: "measurement_errors", at: 102.5)
    }

    @Test(arguments: [LossCause.sessionStopped, .deviceAbsent])
    func fromTheDeviceLink(cause: LossCause) throws {
        var drive = try Self.engaged()
        drive.outputs = drive.engine.linkLost(peer: nil, cause: cause, at: 100.5)
        try Self.expectCleared(drive, cause: cause.rawValue, at: 100.5)
        // cart never ranged: nothing to clear, still connecting.
        #expect(drive.engine.state(of: cart, at: 100.5)?.link == .connecting)
    }

    @Test func regainedEvaluatesAfresh() throws {
        var drive = try Self.engaged()
        drive.tick(at: 103)
        drive.outputs = []
        drive.measure(anna, 0.5, at: 110, azimuth: 5, elevation: 0)
        #expect(drive.eventLines() == [
            "signal_regained \"lost\"→\"ranging\"", "direction_available \"unavailable\"→\"available\"",
            "stage_change null→\"reach\"", "approach_ready handoff \"idle\"→\"ready\"", "facing_gained null→true",
        ])
        #expect(drive.events[0].reason == EventReason(cause: "timeout", lastSeen: 100.4))
        drive.measure(anna, 0.5, at: 110.5)
        #expect(drive.events.contains { $0.type == .zoneEnter && $0.ts == 110.5 })  // the zone's dwell started again
    }

    @Test func noEventsWhileConnectingOrLost() throws {
        var drive = Drive(try StageTests.exampleUnfiltered, peers: [anna])
        drive.tick(at: 50)
        #expect(drive.states.map(\.link) == [.connecting])  // the initial state, once
        drive.outputs = []
        drive.fail(anna, at: 51)
        #expect(drive.outputs.isEmpty)
        drive.measure(anna, 3, at: 52)
        drive.tick(at: 60)
        drive.outputs = []
        drive.tick(at: 70)
        #expect(drive.outputs.isEmpty)
    }
}
