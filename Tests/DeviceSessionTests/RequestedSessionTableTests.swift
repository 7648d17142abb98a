import Testing
import UCI
@testable import DeviceLink

/// Sessions opened on request beside the configured one (phones): their commands wait for the
/// configured session to rest, each step waits for its answer, and what becomes of them is news.
@Suite struct RequestedSessionTableTests {
    typealias T = DeviceSessionTableTests

    static var phone: RangingSessionConfiguration {
        var c = RangingSessionConfiguration(role: .controller, sessionID: 1234, ownAddress: 0, peers: [0xCDAB],
                                            rangingIntervalMilliseconds: 240, air: .android)
        c.oneToMany = false
        return c
    }

    /// The news a driver collected.
    static func news(_ d: T.Driver) -> [RequestedSessionNews] {
        d.all.compactMap { if case let .requestedSession(1234, news) = $0 { news } else { nil } }
    }

    /// Answers the requested session's commands as a device does (handle 8).
    static func answerPhone(_ d: inout T.Driver, startStatus: Status = .ok) {
        while d.answered < d.sent.count {
            let command = d.sent[d.answered]
            d.answered += 1
            switch command {
            case .sessionInit(1234, _):
                d.reply(.response(.sessionInit(status: .ok, sessionHandle: 8)), T.sessionStatus(.initialized, handle: 8))
            case .sessionSetAppConfig(8, _):
                d.reply(.response(.sessionSetAppConfig(status: .ok, failed: [])), T.sessionStatus(.idle, handle: 8))
            case .sessionStart(8):
                d.reply(.response(.sessionStart(status: startStatus)))
                if startStatus == .ok { d.reply(T.sessionStatus(.active, handle: 8)) }
            case .sessionStop(8):
                d.reply(.response(.sessionStop(status: .ok)), T.sessionStatus(.idle, handle: 8))
            case .sessionDeinit(8):
                d.reply(.response(.sessionDeinit(status: .ok)), T.sessionStatus(.deinitialized, handle: 8))
            case .sessionUpdateControllerMulticastList(8, _, _):
                d.reply(.response(.sessionUpdateControllerMulticastList(status: .ok, controlees: nil)))
            default:
                let (before, response, after) = T.answer(command)
                for message in before + [response] + after { d.on(.received(message)) }
            }
        }
    }

    static func phoneRound(_ seq: UInt32) -> UCIMessage {
        .notification(.sessionInfo(SessionInfo(sequenceNumber: seq, sessionHandle: 8, currentRangingInterval: 240,
                                               measurements: .twoWay([TwoWayRangingMeasurement(macAddress: .short(0xCDAB), distanceRaw: 150)]))))
    }

    @Test func aRequestedSessionOpensBesideTheRangingOneAndReportsItsRounds() {
        var d = T.Driver()
        d.bringUp()
        d.on(.openSession(Self.phone))
        #expect(d.sent.suffix(1) == [.sessionInit(sessionID: 1234, sessionType: .firaRangingSession)])
        Self.answerPhone(&d)
        #expect(Array(d.sent.suffix(3)) == [
            .sessionInit(sessionID: 1234, sessionType: .firaRangingSession),
            .sessionSetAppConfig(sessionHandle: 8, Self.phone.appConfiguration),
            .sessionStart(sessionHandle: 8),
        ])
        #expect(Self.news(d) == [.ranging])
        #expect(d.session.state == .ranging)
        // Both sessions' rounds are reported.
        let before = d.measurements
        d.on(.received(Self.phoneRound(0)), at: d.now + 0.24)
        d.on(.received(T.ranging(7, seq: 9)), at: d.now + 0.01)
        #expect(d.measurements == before + 2)
        // Closing stops and deinitialises it, and says why.
        d.on(.closeSession(sessionID: 1234, reason: "stopped on request"))
        Self.answerPhone(&d)
        #expect(Array(d.sent.suffix(2)) == [.sessionStop(sessionHandle: 8), .sessionDeinit(sessionHandle: 8)])
        #expect(Self.news(d) == [.ranging, .closed("stopped on request")])
        #expect(d.session.state == .ranging)
        #expect(d.stops.isEmpty)
        // Its rounds are no longer reported.
        let after = d.measurements
        d.on(.received(Self.phoneRound(1)), at: d.now + 0.24)
        #expect(d.measurements == after)
    }

    /// A phone whose app chose its session id asks again (a new session scope): the old session
    /// is closed and the same id opened again after it, with only the new one's news.
    @Test func theSameSessionIDAskedForAgainWhileClosingOpensAfterTheClose() {
        var d = T.Driver()
        d.bringUp()
        d.on(.openSession(Self.phone))
        Self.answerPhone(&d)
        #expect(Self.news(d) == [.ranging])
        d.on(.closeSession(sessionID: 1234, reason: "the phone asked for a new session"))
        var again = Self.phone
        again.rangingIntervalMilliseconds = 120
        d.on(.openSession(again))
        Self.answerPhone(&d)
        #expect(Array(d.sent.suffix(5)) == [
            .sessionStop(sessionHandle: 8), .sessionDeinit(sessionHandle: 8),
            .sessionInit(sessionID: 1234, sessionType: .firaRangingSession),
            .sessionSetAppConfig(sessionHandle: 8, again.appConfiguration),
            .sessionStart(sessionHandle: 8),
        ])
        #expect(Self.news(d) == [.ranging, .ranging], "no closed news for the session its owner let go")
        // Closed again before it reopens: not opened after all, and the close is said.
        d.on(.closeSession(sessionID: 1234, reason: "first"))
        d.on(.openSession(Self.phone))
        d.on(.closeSession(sessionID: 1234, reason: "second"))
        Self.answerPhone(&d)
        #expect(Array(d.sent.suffix(2)) == [.sessionStop(sessionHandle: 8), .sessionDeinit(sessionHandle: 8)])
        #expect(Self.news(d) == [.ranging, .ranging, .closed("second")])
    }

    @Test func aRequestWaitsForTheBringUp() {
        var d = T.Driver()
        d.on(.tick)
        d.on(.opened(port: "test"))
        d.on(.openSession(Self.phone))
        #expect(d.sent == [.coreDeviceReset(resetConfig: 0)])
        Self.answerPhone(&d)
        #expect(Array(d.sent.prefix(6)) == T.bringUpCommands)
        #expect(d.sent.count == 9)
        #expect(Self.news(d) == [.ranging])
    }

    @Test func aDeviceWithoutRoomForAnotherSessionSaysSo() {
        var d = T.Driver()
        d.bringUp()
        d.on(.openSession(Self.phone))
        d.answered = d.sent.count
        d.reply(.response(.sessionInit(status: .maxSessionsExceeded, sessionHandle: nil)))
        #expect(Self.news(d) == [.failed("the device runs no further session beside its others (SESSION_INIT: ERROR_MAX_SESSIONS_EXCEEDED)")])
        // The configured session ranges on, untouched.
        #expect(d.session.state == .ranging && d.stops.isEmpty)
        let before = d.measurements
        d.on(.received(T.ranging(7, seq: 3)), at: d.now + 0.2)
        #expect(d.measurements == before + 1)
    }

    @Test func aRejectedStartFailsTheRequestAndCleansUp() {
        var d = T.Driver()
        d.bringUp()
        d.on(.openSession(Self.phone))
        Self.answerPhone(&d, startStatus: .rejected)
        #expect(Self.news(d).first == .failed("SESSION_START failed: REJECTED"))
        #expect(d.sent.last == .sessionDeinit(sessionHandle: 8))
        #expect(d.session.state == .ranging && d.stops.isEmpty)
    }

    @Test func aStopByTheDeviceClosesItWithTheReason() {
        var d = T.Driver()
        d.bringUp()
        d.on(.openSession(Self.phone))
        Self.answerPhone(&d)
        d.on(.received(T.sessionStatus(.idle, 0x01, handle: 8)), at: d.now + 1)
        Self.answerPhone(&d)
        #expect(d.sent.last == .sessionDeinit(sessionHandle: 8))
        guard case let .closed(reason)? = Self.news(d).last else { Issue.record("no closed news"); return }
        #expect(reason.hasPrefix("the device stopped the session"))
        #expect(d.stops.isEmpty, "the configured session did not stop")
    }

    @Test func phonesJoinAndLeaveAOneToManySessionWithoutARestart() {
        var d = T.Driver()
        d.bringUp()
        var many = Self.phone
        many.oneToMany = true
        many.air.slotsPerRound = 20
        d.on(.openSession(many))
        Self.answerPhone(&d)
        #expect(d.sent.contains(.sessionSetAppConfig(sessionHandle: 8, many.appConfiguration)))
        #expect(many.appConfiguration.contains(.multiNodeMode(.oneToMany)))
        d.on(.updateSessionPeers(sessionID: 1234, add: [0x1122], remove: []))
        Self.answerPhone(&d)
        #expect(d.sent.last == .sessionUpdateControllerMulticastList(sessionHandle: 8, action: .add, controlees: [Controlee(shortAddress: 0x1122)]))
        d.on(.updateSessionPeers(sessionID: 1234, add: [], remove: [0xCDAB]))
        Self.answerPhone(&d)
        #expect(d.sent.last == .sessionUpdateControllerMulticastList(sessionHandle: 8, action: .delete, controlees: [Controlee(shortAddress: 0xCDAB)]))
        #expect(Self.news(d) == [.ranging, .updated, .updated])
    }

    @Test func aResetClosesRequestedSessionsAndShutdownWindsThemDownFirst() {
        var d = T.Driver()
        d.bringUp()
        d.on(.openSession(Self.phone))
        Self.answerPhone(&d)
        d.on(.shutdownRequested)
        Self.answerPhone(&d)
        #expect(Array(d.sent.suffix(4)) == [.sessionStop(sessionHandle: 8), .sessionDeinit(sessionHandle: 8),
                                           .sessionStop(sessionHandle: 7), .sessionDeinit(sessionHandle: 7)])
        #expect(Self.news(d) == [.ranging, .closed("the gateway stopped the session")])
        #expect(d.session.isShutDown)

        var e = T.Driver()
        e.bringUp()
        e.on(.openSession(Self.phone))
        Self.answerPhone(&e)
        e.on(.received(T.deviceStatus(.error)), at: e.now + 1)
        #expect(Self.news(e) == [.ranging, .closed("the device was initialised again")])
    }

    @Test func withoutConfiguredPeersTheDeviceWaitsForRequests() {
        var d = T.Driver()
        d.session = DeviceSession(configuration: RangingSessionConfiguration(peers: []))
        d.on(.tick)
        d.on(.opened(port: "test"))
        Self.answerPhone(&d)
        #expect(d.sent == Array(T.bringUpCommands.prefix(3)))
        #expect(d.session.state == .idle)
        #expect(d.session.nextDeadline == nil, "an idle device needs no wake-ups")
        d.on(.openSession(Self.phone))
        Self.answerPhone(&d)
        #expect(Self.news(d) == [.ranging])
        d.on(.received(Self.phoneRound(0)), at: d.now + 0.24)
        #expect(d.measurements == 1)
    }
}

extension RequestedSessionTableTests {
    @Test func withOnlyRequestedSessionsShutdownStillWindsThemDown() {
        var d = T.Driver()
        d.session = DeviceSession(configuration: RangingSessionConfiguration(peers: []))
        d.on(.tick)
        d.on(.opened(port: "test"))
        d.on(.openSession(Self.phone))
        Self.answerPhone(&d)
        d.on(.shutdownRequested)
        Self.answerPhone(&d)
        #expect(Array(d.sent.suffix(2)) == [.sessionStop(sessionHandle: 8), .sessionDeinit(sessionHandle: 8)])
        #expect(d.session.isShutDown)
    }
}
