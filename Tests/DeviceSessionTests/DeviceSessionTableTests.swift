import Testing
import UCI
@testable import DeviceLink

/// The session state machine from tables: events and times in, actions out.
@Suite struct DeviceSessionTableTests {
    static let config = RangingSessionConfiguration(role: .controller, sessionID: 42, ownAddress: 0, peers: [1])
    static let info = DeviceInfo(uciVersion: UCIVersion(major: 2, minor: 0), macVersion: UCIVersion(major: 2, minor: 0),
                                 phyVersion: UCIVersion(major: 2, minor: 0), uciTestVersion: UCIVersion(major: 1, minor: 1))
    static let caps = [ConfigTLV(id: 0x13, value: [0])]
    static let bringUpCommands: [UCICommand] = [
        .coreDeviceReset(resetConfig: 0), .coreGetDeviceInfo, .coreGetCapsInfo,
        .sessionInit(sessionID: 42, sessionType: .firaRangingSession),
        .sessionSetAppConfig(sessionHandle: 7, config.appConfiguration),
        .sessionStart(sessionHandle: 7),
    ]

    static func ranging(_ handle: UInt32, seq: UInt32, cm: UInt16 = 100) -> UCIMessage {
        .notification(.sessionInfo(SessionInfo(sequenceNumber: seq, sessionHandle: handle, currentRangingInterval: 200,
                                               measurements: .twoWay([TwoWayRangingMeasurement(macAddress: .short(1), distanceRaw: cm)]))))
    }

    static func sessionStatus(_ state: SessionState, _ reason: ReasonCode = 0, handle: UInt32 = 7) -> UCIMessage {
        .notification(.sessionStatus(sessionHandle: handle, state: state, reason: reason))
    }

    static func deviceStatus(_ state: DeviceState) -> UCIMessage { .notification(.coreDeviceStatus(state)) }

    /// What a DWM3001C answers to a command: the response, and the status notifications it
    /// causes (uci.md §3.3; Q3: a reset's READY comes before and after the response).
    static func answer(_ command: UCICommand) -> (before: [UCIMessage], response: UCIMessage, after: [UCIMessage]) {
        switch command {
        case .coreDeviceReset: ([deviceStatus(.ready)], .response(.coreDeviceReset(status: .ok)), [deviceStatus(.ready)])
        case .coreGetDeviceInfo: ([], .response(.coreGetDeviceInfo(status: .ok, info: info)), [])
        case .coreGetCapsInfo: ([], .response(.coreGetCapsInfo(status: .ok, capabilities: caps)), [])
        case .sessionInit: ([], .response(.sessionInit(status: .ok, sessionHandle: 7)), [sessionStatus(.initialized)])
        case .sessionSetAppConfig: ([], .response(.sessionSetAppConfig(status: .ok, failed: [])), [sessionStatus(.idle)])
        case .sessionStart: ([], .response(.sessionStart(status: .ok)), [deviceStatus(.active), sessionStatus(.active)])
        case .sessionStop: ([], .response(.sessionStop(status: .ok)), [sessionStatus(.idle), deviceStatus(.ready)])
        case .sessionDeinit: ([], .response(.sessionDeinit(status: .ok)), [sessionStatus(.deinitialized), deviceStatus(.ready)])
        default: ([], .response(.coreDeviceReset(status: .ok)), [])
        }
    }

    /// When the status notifications of a command reach the host.
    enum Arrival: CustomStringConvertible {
        /// As the firmware writes them (uci.md §7): READY, RSP, READY for a reset; RSP then NTFs.
        case firmware
        /// Every notification before the response.
        case before
        /// The response, then the notifications this many seconds later, in reverse order.
        case late(Double)
        /// Never while the session waits: they come only after ranging has begun.
        case afterRanging

        var description: String {
            switch self {
            case .firmware: "firmware order"
            case .before: "before the response"
            case let .late(seconds): "\(Int(seconds * 1000)) ms late, reversed"
            case .afterRanging: "after ranging began"
            }
        }
    }

    /// Drives a machine and keeps what it did.
    struct Driver {
        var session = DeviceSession(configuration: DeviceSessionTableTests.config)
        var now = 0.0
        var sent: [UCICommand] = []
        var all: [DeviceSession.Action] = []
        var answered = 0

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

        /// Answers every command sent so far, and those it leads to, like a device would;
        /// returns the notifications held back (`afterRanging`).
        @discardableResult
        mutating func answerAll(_ arrival: Arrival = .firmware) -> [UCIMessage] {
            var held: [UCIMessage] = []
            while answered < sent.count {
                let (before, response, after) = DeviceSessionTableTests.answer(sent[answered])
                answered += 1
                switch arrival {
                case .firmware:
                    for message in before + [response] + after { on(.received(message)) }
                case .before:
                    for message in before + after + [response] { on(.received(message)) }
                case let .late(seconds):
                    on(.received(response))
                    on(.tick, at: now + seconds)
                    for message in (before + after).reversed() { on(.received(message)) }
                case .afterRanging:
                    on(.received(response))
                    held += before + after
                    if answered == sent.count { on(.tick, at: now + session.timing.notificationTimeout) }
                }
            }
            return held
        }

        /// Opens the port and brings the device up to ranging with handle 7.
        mutating func bringUp(_ arrival: Arrival = .firmware) {
            on(.tick)
            on(.opened(port: "test"))
            answerAll(arrival)
        }

        var states: [DeviceLinkState] { all.compactMap { if case let .stateChanged(state) = $0 { state } else { nil } } }
        var stops: [ReasonCode?] { all.compactMap { if case let .sessionStopped(reason) = $0 { reason } else { nil } } }
        var measurements: Int { all.filter { if case .measurements = $0 { true } else { false } }.count }
    }

    // MARK: Bring-up

    @Test func bringUpSendsTheCommandsInOrderAndRanges() {
        var d = Driver()
        #expect(d.on(.tick) == [.stateChanged(.opening), .open])
        d.bringUp()
        #expect(d.sent == Self.bringUpCommands)
        #expect(d.session.state == .ranging)
        #expect(d.all.contains(.deviceIdentified(Self.info, capabilities: Self.caps)))
        #expect(d.on(.received(Self.ranging(7, seq: 0))) == [.measurements(SessionInfo(
            sequenceNumber: 0, sessionHandle: 7, currentRangingInterval: 200,
            measurements: .twoWay([TwoWayRangingMeasurement(macAddress: .short(1), distanceRaw: 100)])))])
        // Notifications of another session are not ours.
        #expect(d.on(.received(Self.ranging(8, seq: 0))).isEmpty)
    }

    @Test("status notifications in any order or late: ranging once, no error, no stop, every round delivered",
          arguments: [Arrival.firmware, .before, .late(0.003), .late(0.020), .afterRanging])
    func notificationOrderings(arrival: Arrival) {
        var d = Driver()
        d.on(.tick)
        d.on(.opened(port: "test"))
        let held = d.answerAll(arrival)
        #expect(d.sent == Self.bringUpCommands)
        #expect(d.states == [.opening, .initializing, .ranging])
        // What came too late to be waited for is old news, not a stop or a reset.
        for message in held { d.on(.received(message), at: d.now + 0.01) }
        for seq in 0..<5 { d.on(.received(Self.ranging(7, seq: UInt32(seq))), at: d.now + 0.2) }
        #expect(d.session.state == .ranging)
        #expect(d.stops.isEmpty)
        #expect(d.measurements == 5)
        #expect(d.sent == Self.bringUpCommands)
    }

    @Test func eachStepWaitsForItsNotification() {
        var d = Driver()
        d.on(.tick); d.on(.opened(port: "test"))
        d.reply(.response(.coreDeviceReset(status: .ok)))
        #expect(d.sent.count == 1, "no GET_DEVICE_INFO before READY")
        d.reply(Self.deviceStatus(.ready))
        #expect(d.sent.last == .coreGetDeviceInfo)
        d.reply(.response(.coreGetDeviceInfo(status: .ok, info: Self.info)), .response(.coreGetCapsInfo(status: .ok, capabilities: [])),
                .response(.sessionInit(status: .ok, sessionHandle: 7)))
        #expect(d.sent.last == .sessionInit(sessionID: 42, sessionType: .firaRangingSession))
        d.reply(Self.sessionStatus(.initialized))
        d.reply(.response(.sessionSetAppConfig(status: .ok, failed: [])))
        #expect(d.sent.last == .sessionSetAppConfig(sessionHandle: 7, Self.config.appConfiguration))
        d.reply(Self.sessionStatus(.idle))
        #expect(d.sent.last == .sessionStart(sessionHandle: 7))
        d.reply(.response(.sessionStart(status: .ok)))
        #expect(d.session.state == .initializing)
        // A round is proof enough that the session started; it is delivered.
        #expect(d.on(.received(Self.ranging(7, seq: 0))).contains(.stateChanged(.ranging)))
        #expect(d.measurements == 1)
        d.reply(Self.sessionStatus(.active))   // late: ignored
        #expect(d.stops.isEmpty && d.session.state == .ranging)
    }

    @Test func aMissingNotificationIsWaitedForHalfASecond() {
        var d = Driver()
        d.on(.tick); d.on(.opened(port: "test"))
        d.reply(.response(.coreDeviceReset(status: .ok)))
        #expect(d.session.nextDeadline == 0.5)
        d.on(.tick, at: 0.49)
        #expect(d.sent.count == 1)
        let actions = d.on(.tick, at: 0.5)
        #expect(actions.contains(.log(.info, "no DEVICE_STATUS_NTF(DEVICE_STATE_READY) within 0.5 s of CORE_DEVICE_RESET_CMD; continuing")))
        #expect(d.sent.last == .coreGetDeviceInfo)
    }

    @Test func fira1ResponseWithoutHandleUsesTheSessionID() {
        var d = Driver()
        d.on(.tick); d.on(.opened(port: "test"))
        d.reply(.response(.coreDeviceReset(status: .ok)), Self.deviceStatus(.ready),
                .response(.coreGetDeviceInfo(status: .ok, info: Self.info)),
                .response(.coreGetCapsInfo(status: .ok, capabilities: [])), .response(.sessionInit(status: .ok, sessionHandle: nil)),
                Self.sessionStatus(.initialized, handle: 42))
        #expect(d.sent.last == .sessionSetAppConfig(sessionHandle: 42, Self.config.appConfiguration))
    }

    // MARK: Failures

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

    @Test func aRejectedConfigurationNamesTheParameterBacksOffAndDeinitialisesTheSession() {
        var d = Driver()
        d.on(.tick); d.on(.opened(port: "test"))
        d.reply(Self.deviceStatus(.ready), .response(.coreDeviceReset(status: .ok)), .response(.coreGetDeviceInfo(status: .ok, info: Self.info)),
                .response(.coreGetCapsInfo(status: .ok, capabilities: [])), .response(.sessionInit(status: .ok, sessionHandle: 1)),
                Self.sessionStatus(.initialized, handle: 1),
                .response(.sessionSetAppConfig(status: .invalidParam, failed: [ConfigStatus(id: 0x04, status: .invalidRange)])))
        #expect(d.session.state == .error("the device rejected the session configuration: CHANNEL_NUMBER (INVALID_RANGE)"))
        let before = d.sent.count
        d.on(.tick, at: 0.5)
        #expect(d.sent.count == before)
        // After the back-off the session the device holds goes first (it never started: no STOP).
        d.on(.tick, at: 1.0)
        #expect(d.sent.last == .sessionDeinit(sessionHandle: 1))
        d.reply(.response(.sessionDeinit(status: .ok)), Self.sessionStatus(.deinitialized, handle: 1))
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

    @Test func aLinkThatDropsRightAfterOpeningKeepsTheBackOffGrowing() {
        var d = Driver()
        var openTimes: [Double] = []
        var t = 0.0
        while openTimes.count < 6 && t < 100 {
            if d.on(.tick, at: t).contains(.open) {
                openTimes.append(t)
                d.on(.opened(port: "tcp://device:4000"))
                d.on(.disconnected("connection closed by the device"), at: t + 0.1)
            }
            t += 0.05
        }
        let gaps = zip(openTimes.dropFirst(), openTimes).map { ($0 - $1 - 0.1).rounded() }
        #expect(gaps == [1, 2, 4, 8, 16])
        // A link that held for a while starts over at one second.
        d.on(.tick, at: 200)
        d.on(.opened(port: "tcp://device:4000"))
        d.on(.disconnected("connection closed by the device"), at: 210)
        #expect(d.session.nextDeadline == 211)
    }

    @Test func aSessionThatStopsRightAfterEachStartBacksOffLongerEachTime() {
        var d = Driver()
        d.bringUp()
        var restarts: [Double] = []
        for attempt in 1...3 {
            d.on(.received(Self.sessionStatus(.idle, .maxRangingRoundRetryCountReached)), at: d.now + 0.1)
            #expect(d.session.state.name == "error")
            let deadline = d.session.nextDeadline!
            restarts.append(deadline - d.now)
            d.on(.tick, at: deadline)
            if attempt == 3 { break }
            d.answerAll()
            #expect(d.session.state == .ranging)
        }
        #expect(restarts == [1, 2, 4])
        // Three failures in a row: the port is closed and opened again.
        #expect(d.all.last == .close)
    }

    // MARK: Stops and resets by the device

    @Test func aSessionStoppedByTheDeviceIsRestarted() {
        var d = Driver()
        d.bringUp()
        let actions = d.on(.received(Self.sessionStatus(.idle, .maxRangingRoundRetryCountReached)), at: 10)
        #expect(actions.contains(.sessionStopped(reason: .maxRangingRoundRetryCountReached)))
        #expect(actions.contains(.log(.warning, "the device stopped the session: MAX_RANGING_ROUND_RETRY_COUNT_REACHED")))
        #expect(d.sent.last == .sessionStart(sessionHandle: 7))
        d.on(.received(Self.deviceStatus(.ready))) // sent with the stop: not a reset
        d.answerAll()
        #expect(d.session.state == .ranging)
        #expect(d.sent.count == 7)
    }

    @Test func anUnexplainedIdleAfterActiveIsAStopEvenWithoutAReason() {
        var d = Driver()
        d.bringUp()
        let actions = d.on(.received(Self.sessionStatus(.idle)), at: 10)
        #expect(actions.contains(.sessionStopped(reason: 0)))
        #expect(d.sent.last == .sessionStart(sessionHandle: 7))
    }

    @Test func aSessionDeinitialisedByTheDeviceIsBroughtUpAgainFromAReset() {
        var d = Driver()
        d.bringUp()
        let actions = d.on(.received(Self.sessionStatus(.deinitialized, 0x81)), at: 10)
        #expect(actions.contains(.sessionStopped(reason: 0x81)))
        #expect(d.sent.last == .coreDeviceReset(resetConfig: 0), "the session is gone: nothing to stop or deinitialise")
    }

    @Test func aDeviceErrorOrSpontaneousResetReinitialises() {
        var d = Driver()
        d.bringUp()
        let actions = d.on(.received(Self.deviceStatus(.error)), at: 5)
        #expect(actions.contains(.send(.coreDeviceReset(resetConfig: 0))), "in ERROR the device takes only a reset")
        #expect(d.session.state == .initializing)

        var e = Driver()
        e.bringUp()
        // Long after the bring-up, READY is news: the device rebooted.
        #expect(e.on(.received(Self.deviceStatus(.ready)), at: 30).contains(.send(.coreDeviceReset(resetConfig: 0))))
        #expect(e.stops == [nil], "a reset gives no reason code")
    }

    @Test func noMeasurementIsReportedWhileTheSessionDoesNotRange() {
        var d = Driver()
        d.bringUp()
        d.on(.received(Self.deviceStatus(.error)), at: 5)
        #expect(d.on(.received(Self.ranging(7, seq: 9))).isEmpty)
        d.on(.tick, at: 6); d.on(.opened(port: "x"))   // re-initialising
        #expect(d.on(.received(Self.ranging(7, seq: 10))).isEmpty)
    }

    @Test func silenceWhileRangingTriggersTheWatchdogAndAGentleRestart() {
        var d = Driver()
        d.bringUp()
        d.on(.received(Self.ranging(7, seq: 0)), at: 1)
        #expect(!d.on(.tick, at: 3.9).contains(.send(.sessionStop(sessionHandle: 7))))
        let actions = d.on(.tick, at: 4.0)
        #expect(actions.contains(.sessionStopped(reason: nil)))
        #expect(actions.contains(.send(.sessionStop(sessionHandle: 7))))
        // A device gone quiet may not answer: the wind-down waits a second per command, no more.
        d.on(.tick, at: 5.0)
        #expect(d.sent.last == .sessionDeinit(sessionHandle: 7))
        d.on(.tick, at: 6.0)
        #expect(d.sent.last == .coreDeviceReset(resetConfig: 0))
    }

    @Test func aFloodOfGenericErrorsIsOneWarningAndACount() {
        var d = Driver()
        d.bringUp()
        for index in 0..<100 { d.on(.received(.notification(.coreGenericError(.rejected))), at: 10 + Double(index) * 0.01) }
        d.on(.received(.notification(.coreGenericError(.rejected))), at: 25)
        let warnings = d.all.compactMap { if case let .log(.warning, text) = $0 { text } else { nil } }
        #expect(warnings == ["device reports CORE_GENERIC_ERROR REJECTED", "… 99 more like it in the last 15 s",
                             "device reports CORE_GENERIC_ERROR REJECTED"])
        #expect(d.session.state == .ranging)
    }

    @Test func anUnplugIsAbsentThenReopened() {
        var d = Driver()
        d.bringUp()
        let actions = d.on(.disconnected("hangup"), at: 10)
        #expect(actions.contains(.stateChanged(.absent("hangup"))))
        // The absent state ends the peers' links (device_absent); no session stop with a made-up reason.
        #expect(!actions.contains { if case .sessionStopped = $0 { true } else { false } })
        #expect(!d.on(.tick, at: 10.5).contains(.open))
        #expect(d.on(.tick, at: 11).contains(.open))
    }

    // MARK: Our own stops, resets and shutdown

    @Test func aResetRequestStopsAndDeinitialisesTheSessionFirst() {
        var d = Driver()
        d.bringUp()
        d.answered = d.sent.count
        d.on(.resetRequested, at: 10)
        d.answerAll(.late(0.01))
        #expect(Array(d.sent.suffix(8)) == [.sessionStop(sessionHandle: 7), .sessionDeinit(sessionHandle: 7)] + Self.bringUpCommands)
        #expect(d.session.state == .ranging)
        #expect(d.stops.isEmpty)
    }

    @Test func shutdownStopsAndDeinitialisesThenNothingMoreHappens() {
        var d = Driver()
        d.bringUp()
        let first = d.on(.shutdownRequested, at: 10)
        #expect(first.contains(.send(.sessionStop(sessionHandle: 7))))
        #expect(d.session.state == .idle, "no measurement is reported from here on")
        #expect(d.on(.received(Self.ranging(7, seq: 3))).isEmpty)
        d.answerAll()
        #expect(Array(d.sent.suffix(2)) == [.sessionStop(sessionHandle: 7), .sessionDeinit(sessionHandle: 7)])
        #expect(d.all.last == .shutDown)
        #expect(d.session.isShutDown)
        let sentBefore = d.sent.count
        #expect(d.on(.tick, at: 100).isEmpty)
        #expect(d.on(.received(Self.deviceStatus(.error))).isEmpty)
        #expect(d.on(.disconnected("hangup")).isEmpty)
        #expect(d.sent.count == sentBefore)
    }

    @Test func shutdownWaitsBrieflyForADeviceThatDoesNotAnswer() {
        var d = Driver()
        d.bringUp()
        d.on(.shutdownRequested, at: 10)
        #expect(d.session.nextDeadline == 11)
        d.on(.tick, at: 11)
        #expect(d.sent.last == .sessionDeinit(sessionHandle: 7))
        #expect(d.on(.tick, at: 12) .contains(.shutDown))
    }

    @Test func shutdownWithoutADeviceIsImmediate() {
        var d = Driver()
        d.on(.tick)
        d.on(.openFailed("no such file", absent: true))
        #expect(d.on(.shutdownRequested) == [.shutDown])
        #expect(d.on(.tick, at: 100).isEmpty, "no new bring-up")
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
        #expect(d.sent.filter { $0 == .coreDeviceReset(resetConfig: 0) }.count == 1)
        // Another kind of change restarts the session, gently.
        new.channel = 5
        #expect(d.on(.reconfigure(new)).contains(.send(.sessionStop(sessionHandle: 7))))
    }

    @Test func stopAndStartRequests() {
        var d = Driver()
        d.bringUp()
        d.on(.stopRequested)
        #expect(d.sent.last == .sessionStop(sessionHandle: 7))
        d.answerAll()
        #expect(d.session.state == .idle)
        #expect(!d.on(.tick, at: 100).contains { if case .send = $0 { true } else { false } }) // no watchdog while idle
        d.on(.startRequested)
        #expect(d.sent.last == .sessionStart(sessionHandle: 7))
        d.answerAll()
        #expect(d.session.state == .ranging)
    }
}
