import Proximity
import Testing

/// A peer's state goes out when a discrete field changes and, unchanged, again once
/// `stateRepeatInterval` (the agent's `mqtt.state_interval`) has passed since it last went out,
/// with the distance it has then.
@Suite struct StateRepeatTests {
    /// A peer walking slowly within one stage, measured ten times a second for 2.5 s.
    static func walk(repeating interval: Double?) throws -> [PeerState] {
        var drive = Drive(try StageTests.exampleUnfiltered, peers: [anna])
        if let interval { drive.engine.stateRepeatInterval = interval }
        for i in 0...25 { drive.measure(anna, 5 + Double(i) / 100, at: 100 + Double(i) / 10) }
        return drive.states
    }

    @Test func anUnchangedStateIsRepeatedEveryInterval() throws {
        let states = try Self.walk(repeating: 1)
        // The first measurement changes it (connecting → ranging, a stage); then once a second.
        #expect(states.map(\.ts) == [100, 101, 102])
        #expect(states.map(\.distanceM) == [5, 5.1, 5.2])
        #expect(Set(states.map(\.discrete)).count == 1)
    }

    @Test func withoutAnIntervalOnlyChangesGoOut() throws {
        #expect(try Self.walk(repeating: nil).map(\.ts) == [100])
    }
}
