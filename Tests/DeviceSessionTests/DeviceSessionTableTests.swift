import Testing
import UCI
@testable import DeviceLink

/// The session state machine from tables: events and times in, actions out.
@Suite struct DeviceSessionTableTests {
    static let config = RangingSessionConfiguration(role: .controller, sessionID: 42, ownAddress: 0, peers: [1])
    static let info = DeviceInfo(uciVersion: UCIVersion(major: 2, minor: 0), macVersion: UCIVersion(major: 2, minor: 0),
                                 phyVersion: UCIVersion(major: 2, minor: 0), uciTestVersion: UCIVersion(major: 1, minor: 1))

    static func ranging(_ handle: UInt32, seq: UInt32, cm: UInt16 = 100) -> UCIMessage {
        .notification(.sessionInfo(SessionInfo(sequenceNumber: seq, sessionHandle: handle, currentRangingInterval: 200,
                                               measurements: .twoWay([TwoWayRangingMeasurement(macAddress: .short(1), distanceRaw: cm)]))))
    }

    /// Drives a machine and keeps the commands it sent.
    struct Driver {
        var session = DeviceSession(configuration: DeviceSessionTableTests.config)
        var now = 0.0
        var sent: [UCICommand] = []
        var all: [DeviceSession.Action] = []

        @discardableResult
        mutating func on(_ event: DeviceSession.Event, at time: Double? = nil) -> [DeviceSession.Action] {
            if let time { now = time }
            let actions = session.handle(event, now: now)
            for case let .send(command) in actions { sent.append(command) }
            all += actions
            return actions
        }

        mutating func reply(_ messages: UCIMessage...) {
            for message in messages { on(.received(message)) }
        }

        /// The full bring-up with a FiRa 2.0 device that gives handle 7 for session 42.
        mutating func bringUp() {
            on(.tick)
            on(.opened(port: "test"))
            reply(.notification(.coreDeviceStatus(.ready)), .response(.coreDeviceReset(status: .ok)),
                  .notification(.coreDeviceStatus(.ready)))
            reply(.response(.coreGetDeviceInfo(status: .ok, info: DeviceSessionTableTests.info)))
            reply(.response(.coreGetCapsInfo(status: .ok, capabilities: [ConfigTLV(id: 0x13, value: [0])])))
            reply(.response(.sessionInit(status: .ok, sessionHandle: 7)),
                  .notification(.sessionStatus(sessionHandle: 7, state: .initialized, reason: 0)))
            reply(.response(.sessionSetAppConfig(status: .ok, failed: [])),
                  .notification(.sessionStatus(sessionHandle: 7, state: .idle, reason: 0)))
            reply(.response(.sessionStart(status: .ok)), .notification(.coreDeviceStatus(.active)),
                  .notification(.sessionStatus(sessionHandle: 7, state: .active, reason: 0)))
        }
    }

    @Test func bringUpSendsTheCommandsInOrderAndRanges() {
        var d = Driver()
        #expect(d.on(.tick) == [.stateChanged(.opening), .open])
        d.bringUp()
        #expect(d.sent == [
            .coreDeviceReset(resetConfig: 0), .coreGetDeviceInfo, .coreGetCapsInfo,
            .sessionInit(sessionID: 42, sessionType: .firaRangingSession),
            .sessionSetAppConfig(sessionHandle: 7, Self.config.appConfiguration),
            .sessionStart(sessionHandle: 7),
        ])
        #expect(d.session.state == .ranging)
        #expect(d.all.contains(.deviceIdentified(Self.info, capabilities: [ConfigTLV(id: 0x13, value: [0])])))
        let actions = d.on(.received(Self.ranging(7, seq: 0)))
        #expect(actions.count == 1)
        // Notifications of another session are not ours.
        #expect(d.on(.received(Self.ranging(8, seq: 0))).isEmpty)
    }

    @Test func fira1ResponseWithoutHandleUsesTheSessionID() {
        var d = Driver()
        d.on(.tick); d.on(.opened(port: "test"))
        d.reply(.response(.coreDeviceReset(status: .ok)), .response(.coreGetDeviceInfo(status: .ok, info: Self.info)),
                .response(.coreGetCapsInfo(status: .ok, capabilities: [])), .response(.sessionInit(status: .ok, sessionHandle: nil)))
        #expect(d.sent.last == .sessionSetAppConfig(sessionHandle: 42, Self.config.appConfiguration))
    }

    @Test func aTimedOutCommandIsResentThenTheDeviceIsReinitialisedAfterBackoff() {
        var d = Driver()
        d.on(.tick); d.on(.opened(port: "test"))
        d.on(.tick, at: 1.9)
        #expect(d.sent.count == 1)
        d.on(.tick, at: 2.0)
        d.on(.tick, at: 4.0)
        #expect(d.sent == Array(repeating: .coreDeviceReset(resetConfig: 0), count: 3))
        d.on(.tick, at: 6.0)
        #expect(d.session.state == .error("the device did not answer CORE_DEVICE_RESET_CMD"))
        d.on(.tick, at: 6.9)
        #expect(d.sent.count == 3)
        d.on(.tick, at: 7.0) // back-off of 1 s over: start again
        #expect(d.sent.count == 4)
        #expect(d.session.state == .initializing)
    }

    @Test func aRejectedConfigurationNamesTheParameterAndBacksOff() {
        var d = Driver()
        d.on(.tick); d.on(.opened(port: "test"))
        d.reply(.response(.coreDeviceReset(status: .ok)), .response(.coreGetDeviceInfo(status: .ok, info: Self.info)),
                .response(.coreGetCapsInfo(status: .ok, capabilities: [])), .response(.sessionInit(status: .ok, sessionHandle: 1)),
                .response(.sessionSetAppConfig(status: .invalidParam, failed: [ConfigStatus(id: 0x04, status: .invalidRange)])))
        #expect(d.session.state == .error("the device rejected the session configuration: CHANNEL_NUMBER (INVALID_RANGE)"))
        let before = d.sent.count
        d.on(.tick, at: 0.5)
        #expect(d.sent.count == before)
        d.on(.tick, at: 1.0)
        #expect(d.sent.last == .coreDeviceReset(resetConfig: 0))
    }

    @Test func backOffDoublesUpToOneMinute() {
        var d = Driver()
        var openTimes: [Double] = []
        var t = 0.0
        while openTimes.count < 10 && t < 1000 {
            if d.on(.tick, at: t).contains(.open) {
                openTimes.append(t)
                d.on(.openFailed("no such file", absent: true))
            }
            t += 0.5
        }
        let gaps = zip(openTimes.dropFirst(), openTimes).map { $0 - $1 }
        #expect(gaps == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        // The reason is logged once, not on every attempt.
        #expect(d.all.filter { if case .log(_, let text) = $0 { text.contains("no such file") } else { false } }.count == 1)
        #expect(d.session.state == .absent("no such file"))
    }

    @Test func aSessionStoppedByTheDeviceIsRestarted() {
        var d = Driver()
        d.bringUp()
        let actions = d.on(.received(.notification(.sessionStatus(sessionHandle: 7, state: .idle, reason: .maxRangingRoundRetryCountReached))), at: 10)
        #expect(actions.contains(.sessionStopped(reason: .maxRangingRoundRetryCountReached)))
        #expect(actions.contains(.log(.warning, "the device stopped the session: MAX_RANGING_ROUND_RETRY_COUNT_REACHED")))
        #expect(d.sent.last == .sessionStart(sessionHandle: 7))
        d.on(.received(.notification(.coreDeviceStatus(.ready)))) // sent with the stop: not a reset
        d.reply(.response(.sessionStart(status: .ok)))
        #expect(d.session.state == .ranging)
        #expect(d.sent.count == 7)
    }

    @Test func aDeviceErrorOrSpontaneousResetReinitialises() {
        var d = Driver()
        d.bringUp()
        let actions = d.on(.received(.notification(.coreDeviceStatus(.error))), at: 5)
        #expect(actions.contains(.send(.coreDeviceReset(resetConfig: 0))))
        #expect(d.session.state == .initializing)

        var e = Driver()
        e.bringUp()
        #expect(e.on(.received(.notification(.coreDeviceStatus(.ready))), at: 5).contains(.send(.coreDeviceReset(resetConfig: 0))))
    }

    @Test func silenceWhileRangingTriggersTheWatchdog() {
        var d = Driver()
        d.bringUp()
        d.on(.received(Self.ranging(7, seq: 0)), at: 1)
        #expect(!d.on(.tick, at: 3.9).contains(.send(.coreDeviceReset(resetConfig: 0))))
        #expect(d.on(.tick, at: 4.0).contains(.send(.coreDeviceReset(resetConfig: 0))))
    }

    @Test func anUnplugIsAbsentThenReopened() {
        var d = Driver()
        d.bringUp()
        let actions = d.on(.disconnected("hangup"), at: 10)
        #expect(actions.contains(.stateChanged(.absent("hangup"))))
        #expect(actions.contains(.sessionStopped(reason: 0xFF)))
        #expect(!d.on(.tick, at: 10.5).contains(.open))
        #expect(d.on(.tick, at: 11).contains(.open))
    }

    @Test func peersChangedWhileRangingOneToManyUseTheMulticastList() {
        var d = Driver()
        d.session = DeviceSession(configuration: RangingSessionConfiguration(peers: [1, 2]))
        d.bringUp()
        var new = RangingSessionConfiguration(peers: [2, 3])
        d.on(.reconfigure(new))
        #expect(d.sent.last == .sessionUpdateControllerMulticastList(sessionHandle: 7, action: .delete, controlees: [Controlee(shortAddress: 1)]))
        d.reply(.response(.sessionUpdateControllerMulticastList(status: .ok, controlees: [ControleeStatus(shortAddress: 1, status: .ok)])))
        #expect(d.sent.last == .sessionUpdateControllerMulticastList(sessionHandle: 7, action: .add, controlees: [Controlee(shortAddress: 3)]))
        d.reply(.response(.sessionUpdateControllerMulticastList(status: .ok, controlees: [ControleeStatus(shortAddress: 3, status: .ok)])))
        #expect(d.session.configuration.peers == [2, 3])
        #expect(d.session.state == .ranging)
        #expect(!d.sent.contains(.coreDeviceReset(resetConfig: 0)) || d.sent.filter { $0 == .coreDeviceReset(resetConfig: 0) }.count == 1)
        // Another kind of change restarts the session.
        new.channel = 5
        #expect(d.on(.reconfigure(new)).contains(.send(.coreDeviceReset(resetConfig: 0))))
    }

    @Test func stopAndStartRequests() {
        var d = Driver()
        d.bringUp()
        d.on(.stopRequested)
        #expect(d.sent.last == .sessionStop(sessionHandle: 7))
        d.reply(.response(.sessionStop(status: .ok)), .notification(.sessionStatus(sessionHandle: 7, state: .idle, reason: 0)),
                .notification(.coreDeviceStatus(.ready)))
        #expect(d.session.state == .idle)
        #expect(!d.on(.tick, at: 100).contains { if case .send = $0 { true } else { false } }) // no watchdog while idle
        d.on(.startRequested)
        #expect(d.sent.last == .sessionStart(sessionHandle: 7))
        d.reply(.response(.sessionStart(status: .ok)))
        #expect(d.session.state == .ranging)
    }
}
