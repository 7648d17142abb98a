import DeviceLink
import Testing
import UCI

/// How `replay` reads the configured session from a recording: the rounds that are its own, and
/// the stops the device made (not the host's own STOP or DEINIT, which the recording does not show).
@Suite struct RecordedSessionTests {
    static func round(_ handle: UInt32) -> UCIMessage {
        .notification(.sessionInfo(SessionInfo(sequenceNumber: 1, sessionHandle: handle, currentRangingInterval: 200,
                                               measurements: .twoWay([TwoWayRangingMeasurement(macAddress: .short(1), distanceRaw: 100)]))))
    }

    static func status(_ handle: UInt32, _ state: SessionState, _ reason: ReasonCode) -> UCIMessage {
        .notification(.sessionStatus(sessionHandle: handle, state: state, reason: reason))
    }

    static func brought(up handle: UInt32) -> RecordedSession {
        var session = RecordedSession()
        _ = session.read(.response(.coreDeviceReset(status: .ok)))
        _ = session.read(.response(.sessionInit(status: .ok, sessionHandle: handle)))
        return session
    }

    @Test func theConfiguredSessionIsTheFirstAfterAResetAndOnlyItsRoundsCount() {
        var session = Self.brought(up: 1)
        #expect(session.read(Self.round(1)) == [.rounds(SessionInfo(sequenceNumber: 1, sessionHandle: 1, currentRangingInterval: 200,
                                                                  measurements: .twoWay([TwoWayRangingMeasurement(macAddress: .short(1), distanceRaw: 100)])))])
        // A phone's session opened later: its rounds and its end are not the configured peers'.
        _ = session.read(.response(.sessionInit(status: .ok, sessionHandle: 2)))
        #expect(session.read(Self.round(2)) == [])
        #expect(session.read(Self.status(2, .idle, 0x01)) == [])
        #expect(session.handle == 1 && session.ranging)
    }

    @Test func theDevicesStopsAreStopsAndTheHostsAreNot() {
        var session = Self.brought(up: 1)
        _ = session.read(Self.round(1))
        // SESSION_STOP by the host (a session_stop request): IDLE without a reason.
        #expect(session.read(Self.status(1, .idle, 0x00)) == [])
        #expect(!session.ranging)
        _ = session.read(Self.round(1))
        // The device's own: IDLE or DEINIT with a reason, ERROR, or READY while ranging (a reset).
        #expect(session.read(Self.status(1, .idle, 0x01)) == [.stopped(0x01)])
        #expect(session.read(Self.status(1, .deinitialized, 0x01)) == [], "said once")
        _ = session.read(Self.round(1))
        #expect(session.read(Self.status(1, .deinitialized, 0x01)) == [.stopped(0x01)])
        _ = session.read(Self.round(1))
        #expect(session.read(.notification(.coreDeviceStatus(.error))) == [.stopped(nil)])
        _ = session.read(Self.round(1))
        #expect(session.read(.notification(.coreDeviceStatus(.ready))) == [.stopped(nil)])
        // READY while not ranging is the end of a reset or a stop, not news.
        #expect(session.read(.notification(.coreDeviceStatus(.ready))) == [])
    }

    @Test func aRecordingWithoutTheBringUpAdoptsTheFirstSessionThatRanges() {
        var session = RecordedSession()
        #expect(session.read(Self.round(5)) != [])
        #expect(session.read(Self.round(6)) == [])
        #expect(session.handle == 5)
    }
}
