import Vocabulary
import UCI

/// The UCI session state machine: it brings a DWM3001C from power-on to ranging and keeps it
/// there. Reset → device info → caps → SESSION_INIT → SESSION_SET_APP_CONFIG → SESSION_START,
/// one command in flight at a time with a timeout and bounded retries.
///
/// A step is done when the command's response came and the status notification it promises
/// (`StatusPromise`) came too, in either order; a promised notification that does not come
/// within `notificationTimeout` is waited for no longer and ignored if it comes later, as is any
/// notification a command causes incidentally. What is left is news: the device stopped the
/// session, reset itself or went into ERROR.
///
/// Before a reset or a re-initialisation, and on shutdown, a session the device holds is wound
/// down with SESSION_STOP and SESSION_DEINIT (each waited for briefly, never retried), so that a
/// device is not left to clean up after its host.
///
/// It is pure: events and the current time go in, actions come out (commands to write, state
/// changes, measurements, log lines). `DeviceLinkService` owns the transport and feeds it; tests
/// drive it from tables. It recovers by itself from a device reset or ERROR state, a session the
/// device stopped, a command timeout, a rejected configuration (with back-off) and an unplug
/// (reopening with back-off until the port is back).
public struct DeviceSession: Sendable {
    /// What happened: the transport's fate, a message from the device, time passing, or a request.
    public enum Event: Equatable, Sendable {
        case opened(port: String)
        /// `absent` when the port does not exist (not plugged in) or nothing listens at a
        /// `tcp://` address, else a real error (permissions).
        case openFailed(String, absent: Bool)
        case disconnected(String)
        case received(UCIMessage)
        case tick
        case reconfigure(RangingSessionConfiguration)
        case startRequested
        case stopRequested
        case resetRequested
        /// The agent is stopping: wind the session down, then `shutDown`; nothing starts again.
        case shutdownRequested
        /// Open a session beside the configured one (a phone's): SESSION_INIT, SET_APP_CONFIG,
        /// START, once the configured session is settled. News come as `requestedSession`.
        case openSession(RangingSessionConfiguration)
        /// Add or remove peers of a requested one-to-many session while it ranges.
        case updateSessionPeers(sessionID: UInt32, add: [UInt16], remove: [UInt16])
        /// Stop and deinitialise a requested session; `reason` comes back in its `closed` news.
        case closeSession(sessionID: UInt32, reason: String)
    }

    /// What the service must do or tell.
    public enum Action: Equatable, Sendable {
        /// Try to open the transport now.
        case open
        /// Close the transport (it is misbehaving); `open` follows after a back-off.
        case close
        case send(UCICommand)
        case stateChanged(DeviceLinkState)
        case deviceIdentified(DeviceInfo, capabilities: [ConfigTLV])
        /// A ranging round of the running session, while the session is ranging.
        case measurements(SessionInfo)
        /// The device stopped ranging without being asked: the proximity engine treats the
        /// peers' links as lost with cause `session_stopped`. `reason` is the device's
        /// SESSION_STATUS_NTF reason code, nil when the session ended with no such notification
        /// (the device reset itself, reported an error or went silent): every byte is a code the
        /// device may send (0xFF is RDS_BUSY), so none can stand for "no reason".
        case sessionStopped(reason: ReasonCode?)
        case log(LogLevel, String)
        /// The session is wound down after `shutdownRequested`: close the transport for good.
        case shutDown
        /// What became of a session opened with `openSession`.
        case requestedSession(sessionID: UInt32, RequestedSessionNews)
    }

    /// Timeouts and back-off, in seconds.
    public struct Timing: Sendable, Equatable {
        public var commandTimeout: Double = 2
        /// Resends of a command that timed out or got COMMAND_RETRY before giving up on it.
        public var commandRetries = 2
        /// How long a promised status notification is waited for after the response.
        public var notificationTimeout: Double = 0.5
        /// How long SESSION_STOP and SESSION_DEINIT are waited for when winding a session down.
        public var windDownTimeout: Double = 1
        /// How long a notification that came too late to be waited for is still recognised.
        public var lateNotificationHorizon: Double = 5
        public var backoffInitial: Double = 1
        public var backoffMaximum: Double = 60
        /// A link that lasted this long (or reached ranging), or a ranging session that lasted
        /// this long, is sound: its back-off starts over. One that drops sooner keeps the
        /// back-off growing, so that a server that accepts and drops at once, or a device that
        /// stops every session it starts, is not hammered every second.
        public var stableAfter: Double = 5
        /// Initialisations that may fail in a row before the port is closed and reopened.
        public var failuresBeforeReopen = 3
        public init() {}
    }

    private enum Step: Equatable, Sendable {
        case reset, deviceInfo, caps, sessionInit, setAppConfig, start, stop, multicastUpdate
        /// SESSION_STOP and SESSION_DEINIT of a session handle before a reset or on shutdown.
        case windDownStop(UInt32), windDownDeinit(UInt32)
        /// A step of a requested session (by session id).
        case requested(UInt32, RequestedStep)

        var isRequestedStart: Bool {
            if case .requested(_, .start) = self { true } else { false }
        }
    }

    private enum RequestedStep: Equatable, Sendable {
        case initialize, configure, start, add([UInt16]), remove([UInt16]), stop, deinitialize
    }

    /// Work on requested sessions waits until the configured session rests (ranging or idle):
    /// UCI has one command in flight, and the bring-up comes first.
    private enum RequestedWork: Equatable, Sendable {
        case open(UInt32)
        case update(UInt32, add: [UInt16], remove: [UInt16])
        case close(UInt32)
    }

    /// A command in flight: sent, maybe answered, maybe still waiting for promised notifications.
    private struct InFlight: Equatable, Sendable {
        var step: Step
        var command: UCICommand
        var sentAt: Double
        var attempt: Int
        var response: UCIResponse?
        var answeredAt: Double?
        var awaiting: [ExpectedStatus]
    }

    private enum Phase: Equatable, Sendable {
        /// No transport; open at `retryAt`.
        case closed(retryAt: Double)
        case opening
        case command(InFlight)
        case ranging
        case idle
        /// Transport open but the device misbehaved; initialise again at `until`.
        case backoff(until: Double)
        /// After `shutdownRequested`: nothing happens any more.
        case shutDown
    }

    /// What follows a wind-down.
    private enum WindDownGoal: Sendable {
        case reinitialize, shutDown
    }

    public private(set) var configuration: RangingSessionConfiguration
    public let timing: Timing
    public private(set) var state: DeviceLinkState = .absent(nil)
    /// The session handle of the session on the device (FiRa 2.0), or its id (FiRa 1.x).
    public private(set) var sessionHandle: UInt32?
    public private(set) var deviceInfo: DeviceInfo?
    public private(set) var capabilities: [ConfigTLV] = []

    private var phase: Phase = .closed(retryAt: 0)
    private var openBackoff: Double
    private var initBackoff: Double
    private var failedInitializations = 0
    private var openFailure = RepeatedReason()
    private var openedAt = -Double.infinity
    private var lastNotificationAt: Double = 0
    private var rangingSince = -Double.infinity
    /// False from SESSION_START until the session has ranged for `stableAfter`.
    private var rangingSettled = true
    private var stopRequested = false
    /// True from SESSION_START until the session is known to have stopped: it needs a STOP.
    private var sessionMayBeActive = false
    private var windDownGoal: WindDownGoal = .reinitialize
    /// Notifications our commands caused that may still come, until the time given.
    private var lateStatuses: [(status: ExpectedStatus, until: Double)] = []
    private var pendingPeers: [UInt16]?
    private var pendingAdds: [UInt16] = []
    private var genericErrors = LogThrottle()
    private var multicastWarnings = LogThrottle()
    /// Sessions opened on request, by session id, and the work waiting for the device.
    private var requested: [UInt32: RequestedSession] = [:]
    private var requestedQueue: [RequestedWork] = []
    /// Where a requested session's commands return to: `.ranging` or `.idle`.
    private var restingPhase: Phase = .idle

    public init(configuration: RangingSessionConfiguration, timing: Timing = Timing()) {
        self.configuration = configuration
        self.timing = timing
        openBackoff = timing.backoffInitial
        initBackoff = timing.backoffInitial
    }

    /// No ranging data for this long while ranging means the device went quiet: start over.
    var rangingWatchdog: Double { max(3, 10 * Double(configuration.rangingIntervalMilliseconds) / 1000) }

    /// True once the session has wound down after `shutdownRequested`.
    public var isShutDown: Bool { phase == .shutDown }

    /// When `handle(.tick)` next has something to do (a retry, a command or notification
    /// timeout, the end of a back-off, the ranging watchdog); nil while only an input can move
    /// the session on. The link sleeps until then instead of ticking at a fixed rate.
    public var nextDeadline: Double? {
        switch phase {
        case let .closed(retryAt): retryAt
        case let .command(flight):
            if let answeredAt = flight.answeredAt { answeredAt + timing.notificationTimeout } else { flight.sentAt + timeout(of: flight.step) }
        case let .backoff(until): until
        case .ranging: lastNotificationAt + rangingWatchdog
        case .opening, .idle, .shutDown: nil
        }
    }

    public mutating func handle(_ event: Event, now: Double) -> [Action] {
        var actions: [Action] = []
        if phase == .shutDown { return actions }
        switch event {
        case let .opened(port):
            openFailure.clear()
            openedAt = now
            lateStatuses = []
            actions.append(.log(.info, "opened \(port)"))
            beginInitialization(now: now, &actions)
        case let .openFailed(reason, absent):
            if openFailure.isNew(reason) {
                actions.append(.log(absent ? .warning : .error, "cannot open the device: \(reason); retrying with back-off"))
            }
            setState(absent ? .absent(reason) : .error(reason), &actions)
            retryOpen(now: now)
        case let .disconnected(reason):
            if now - openedAt >= timing.stableAfter { openBackoff = timing.backoffInitial }
            actions.append(.log(.warning, "device disconnected: \(reason)"
                + (openBackoff > timing.backoffInitial ? "; reopening in \(format(openBackoff)) s" : "")))
            // No `sessionStopped`: the peers' links end with the `absent` state, as `device_absent`.
            sessionHandle = nil
            sessionMayBeActive = false
            forgetRequested("the device went away", &actions)
            setState(.absent(reason), &actions)
            retryOpen(now: now)
        case let .received(message):
            received(message, now: now, &actions)
        case .tick:
            tick(now: now, &actions)
        case let .reconfigure(new):
            reconfigure(new, now: now, &actions)
        case .startRequested:
            stopRequested = false
            if phase == .idle, let handle = sessionHandle {
                send(.start, .sessionStart(sessionHandle: handle), now: now, &actions)
            }
        case .stopRequested:
            stopRequested = true
            if phase == .ranging, let handle = sessionHandle {
                send(.stop, .sessionStop(sessionHandle: handle), now: now, &actions)
            }
        case .resetRequested:
            stopRequested = false
            if isOpen { reinitialize(now: now, &actions) }
        case .shutdownRequested:
            if isOpen && holdsSessions {
                // Not ranging from here on: no measurement is reported while the session winds down.
                setState(.idle, &actions)
                windDownGoal = .shutDown
                windDown(now: now, &actions)
            } else {
                finishShutdown(&actions)
            }
        case let .openSession(new):
            openRequested(new, &actions)
        case let .updateSessionPeers(id, add, remove):
            guard requested[id]?.ranging == true else {
                actions.append(.requestedSession(sessionID: id, .failed("session \(id) is not ranging")))
                break
            }
            requestedQueue.append(.update(id, add: add, remove: remove))
        case let .closeSession(id, reason):
            guard requested[id] != nil else { break }
            requested[id]?.closing = reason
            // One asked for again while closing is not opened after all; the close's news is its.
            requested[id]?.reopening = nil
            requestedQueue.removeAll { if case .open(id) = $0 { true } else if case .update(id, _, _) = $0 { true } else { false } }
            requestedQueue.append(.close(id))
        }
        startRequestedWork(now: now, &actions)
        return actions
    }

    /// The device holds a session of ours: the configured one or one opened on request.
    private var holdsSessions: Bool {
        sessionHandle != nil || requested.values.contains { $0.handle != nil }
    }

    private var isOpen: Bool {
        switch phase {
        case .closed, .opening, .shutDown: false
        default: true
        }
    }

    private mutating func setState(_ new: DeviceLinkState, _ actions: inout [Action]) {
        guard new != state else { return }
        state = new
        actions.append(.stateChanged(new))
    }

    /// Opens again after the back-off, which doubles each time until a link proves stable.
    private mutating func retryOpen(now: Double) {
        phase = .closed(retryAt: now + openBackoff)
        openBackoff = min(openBackoff * 2, timing.backoffMaximum)
    }

    private func timeout(of step: Step) -> Double {
        switch step {
        case .windDownStop, .windDownDeinit, .requested(_, .stop), .requested(_, .deinitialize): timing.windDownTimeout
        default: timing.commandTimeout
        }
    }

    private mutating func send(_ step: Step, _ command: UCICommand, now: Double, attempt: Int = 0, _ actions: inout [Action]) {
        let promise = StatusPromise(for: command)
        for status in promise.incidental { expectLate(status, now: now) }
        phase = .command(InFlight(step: step, command: command, sentAt: now, attempt: attempt, awaiting: promise.awaited))
        if case .sessionStart = command { sessionMayBeActive = true }
        actions.append(.send(command))
    }

    private mutating func expectLate(_ status: ExpectedStatus, now: Double) {
        // Bounded: a device that never sends what it promises must not grow the list.
        if lateStatuses.count >= 16 { lateStatuses.removeFirst() }
        lateStatuses.append((status, now + timing.lateNotificationHorizon))
    }

    /// Starts the bring-up from a reset. The device's session, if any, is gone or forgotten.
    private mutating func beginInitialization(now: Double, _ actions: inout [Action]) {
        sessionHandle = nil
        sessionMayBeActive = false
        forgetRequested("the device was initialised again", &actions)
        setState(.initializing, &actions)
        send(.reset, .coreDeviceReset(resetConfig: 0), now: now, &actions)
    }

    /// Initialises again, winding down the session the device holds first.
    private mutating func reinitialize(now: Double, _ actions: inout [Action]) {
        guard holdsSessions else { return beginInitialization(now: now, &actions) }
        setState(.initializing, &actions)
        windDownGoal = .reinitialize
        windDown(now: now, &actions)
    }

    /// SESSION_STOP (when the session may be ranging), then SESSION_DEINIT, then the goal:
    /// the requested sessions first (in session id order), then the configured one.
    private mutating func windDown(now: Double, _ actions: inout [Action]) {
        requestedQueue = []
        if let session = requested.values.filter({ $0.handle != nil }).min(by: { $0.sessionID < $1.sessionID }), let handle = session.handle {
            if session.mayBeActive {
                send(.windDownStop(handle), .sessionStop(sessionHandle: handle), now: now, &actions)
            } else {
                send(.windDownDeinit(handle), .sessionDeinit(sessionHandle: handle), now: now, &actions)
            }
            return
        }
        guard let handle = sessionHandle else { return windDownFinished(now: now, &actions) }
        if sessionMayBeActive {
            send(.windDownStop(handle), .sessionStop(sessionHandle: handle), now: now, &actions)
        } else {
            send(.windDownDeinit(handle), .sessionDeinit(sessionHandle: handle), now: now, &actions)
        }
    }

    private mutating func windDownStepDone(_ step: Step, now: Double, _ actions: inout [Action]) {
        switch step {
        case let .windDownStop(handle):
            if handle == sessionHandle { sessionMayBeActive = false }
            if let id = requestedID(of: handle) {
                requested[id]?.mayBeActive = false
                requested[id]?.ranging = false
            }
        case let .windDownDeinit(handle):
            if handle == sessionHandle { sessionHandle = nil }
            if let id = requestedID(of: handle) { endRequested(id, "the gateway stopped the session", &actions) }
        default:
            break
        }
        windDown(now: now, &actions)
    }

    private mutating func windDownFinished(now: Double, _ actions: inout [Action]) {
        sessionHandle = nil
        sessionMayBeActive = false
        switch windDownGoal {
        case .reinitialize: beginInitialization(now: now, &actions)
        case .shutDown: finishShutdown(&actions)
        }
    }

    private mutating func finishShutdown(_ actions: inout [Action]) {
        phase = .shutDown
        actions.append(.shutDown)
    }

    /// Something went wrong during or after initialisation: report it, wait, start over.
    private mutating func fail(_ message: String, now: Double, _ actions: inout [Action]) {
        actions.append(.log(.error, message + "; retrying in \(format(initBackoff)) s"))
        setState(.error(message), &actions)
        failedInitializations += 1
        phase = .backoff(until: now + initBackoff)
        initBackoff = min(initBackoff * 2, timing.backoffMaximum)
    }

    private mutating func tick(now: Double, _ actions: inout [Action]) {
        switch phase {
        case let .closed(retryAt) where now >= retryAt:
            phase = .opening
            setState(.opening, &actions)
            actions.append(.open)
        case let .command(flight):
            commandTick(flight, now: now, &actions)
        case let .backoff(until) where now >= until:
            if failedInitializations >= timing.failuresBeforeReopen {
                actions.append(.log(.warning, "the device failed to initialise \(failedInitializations) times; reopening the port"))
                failedInitializations = 0
                sessionHandle = nil
                phase = .closed(retryAt: now)
                actions.append(.close)
            } else {
                reinitialize(now: now, &actions)
            }
        case .ranging where now - lastNotificationAt >= rangingWatchdog:
            actions.append(.log(.warning, "no ranging data for \(format(now - lastNotificationAt)) s; initialising the device again"))
            actions.append(.sessionStopped(reason: nil))
            reinitialize(now: now, &actions)
        default:
            break
        }
    }

    private mutating func commandTick(_ flight: InFlight, now: Double, _ actions: inout [Action]) {
        if let answeredAt = flight.answeredAt {
            guard now - answeredAt >= timing.notificationTimeout else { return }
            // Not every firmware sends every status notification: go on without it, and
            // recognise it should it come after all.
            let missing = flight.awaiting.map(\.description).joined(separator: ", ")
            actions.append(.log(.info, "no \(missing) within \(format(timing.notificationTimeout)) s of \(flight.command.raw.name); continuing"))
            for status in flight.awaiting { expectLate(status, now: now) }
            var done = flight
            done.awaiting = []
            phase = .command(done)
            completeIfDone(now: now, &actions)
            return
        }
        guard now - flight.sentAt >= timeout(of: flight.step) else { return }
        switch flight.step {
        case .windDownStop, .windDownDeinit:
            actions.append(.log(.warning, "no response to \(flight.command.raw.name) within \(format(timing.windDownTimeout)) s; going on"))
            windDownStepDone(flight.step, now: now, &actions)
        case let .requested(id, step) where flight.attempt >= timing.commandRetries || step == .stop || step == .deinitialize:
            requestedStepFailed(id, step, "the device did not answer \(flight.command.raw.name)", now: now, &actions)
        default:
            if flight.attempt < timing.commandRetries {
                actions.append(.log(.warning, "no response to \(flight.command.raw.name) within \(format(timing.commandTimeout)) s; resending"))
                send(flight.step, flight.command, now: now, attempt: flight.attempt + 1, &actions)
            } else {
                fail("the device did not answer \(flight.command.raw.name)", now: now, &actions)
            }
        }
    }

    private mutating func received(_ message: UCIMessage, now: Double, _ actions: inout [Action]) {
        switch message {
        case let .response(response):
            respond(response, now: now, &actions)
        case let .notification(notification):
            notify(notification, now: now, &actions)
        case .command, .other:
            actions.append(.log(.debug, "ignored \(message.name) from the device"))
        }
    }

    // MARK: Responses

    private mutating func respond(_ response: UCIResponse, now: Double, _ actions: inout [Action]) {
        guard case var .command(flight) = phase, flight.response == nil, flight.command.opcode == response.opcode else {
            actions.append(.log(.debug, "ignored unexpected \(response.raw.name)"))
            return
        }
        let status = response.status ?? .unknown
        if status == .commandRetry {
            if flight.attempt < timing.commandRetries {
                send(flight.step, flight.command, now: now, attempt: flight.attempt + 1, &actions)
            } else {
                fail("the device kept asking to retry \(flight.command.raw.name)", now: now, &actions)
            }
            return
        }
        if let problem = rejection(of: response, in: flight.step, status: status) {
            switch flight.step {
            case .windDownStop, .windDownDeinit:
                // Not active, or not there: either way there is nothing left to wind down.
                actions.append(.log(.debug, "\(response.raw.name): \(status)"))
                return windDownStepDone(flight.step, now: now, &actions)
            case .multicastUpdate:
                actions.append(.log(.warning, "multicast list update failed: \(status); restarting the session"))
                return reinitialize(now: now, &actions)
            case .start, .stop:
                sessionMayBeActive = false
                return fail(problem, now: now, &actions)
            case let .requested(id, step):
                return requestedStepFailed(id, step, problem, now: now, &actions)
            default:
                return fail(problem, now: now, &actions)
            }
        }
        flight.response = response
        flight.answeredAt = now
        phase = .command(flight)
        completeIfDone(now: now, &actions)
    }

    /// Why a response means the step failed, nil when it succeeded.
    private func rejection(of response: UCIResponse, in step: Step, status: Status) -> String? {
        switch (step, response) {
        case (.caps, _):
            return nil  // without capabilities the session still works
        case let (.deviceInfo, .coreGetDeviceInfo(_, info)):
            return status == .ok && info != nil ? nil : "CORE_GET_DEVICE_INFO failed: \(status)"
        case let (.setAppConfig, .sessionSetAppConfig(_, failed)):
            guard status != .ok || !failed.isEmpty else { return nil }
            let names = failed.map { "\(AppConfigID(rawValue: $0.id)) (\($0.status))" }.joined(separator: ", ")
            return "the device rejected the session configuration: " + (names.isEmpty ? "\(status)" : names)
        case (.sessionInit, _):
            return status == .ok ? nil : "SESSION_INIT of session \(configuration.sessionID) failed: \(status)"
        case (.requested(_, .initialize), _) where status == .maxSessionsExceeded:
            return "the device runs no further session beside its others (SESSION_INIT: \(status))"
        case let (.requested(_, .configure), .sessionSetAppConfig(_, failed)):
            guard status != .ok || !failed.isEmpty else { return nil }
            let names = failed.map { "\(AppConfigID(rawValue: $0.id)) (\($0.status))" }.joined(separator: ", ")
            return "the device rejected the session configuration: " + (names.isEmpty ? "\(status)" : names)
        default:
            return status == .ok ? nil : "\(response.raw.name.replacingSuffix("_RSP")) failed: \(status)"
        }
    }

    /// The step is done once answered and every promised notification came: go on.
    private mutating func completeIfDone(now: Double, _ actions: inout [Action]) {
        guard case let .command(flight) = phase, let response = flight.response, flight.awaiting.isEmpty else { return }
        switch (flight.step, response) {
        case (.reset, _):
            send(.deviceInfo, .coreGetDeviceInfo, now: now, &actions)
        case let (.deviceInfo, .coreGetDeviceInfo(_, info)):
            deviceInfo = info
            send(.caps, .coreGetCapsInfo, now: now, &actions)
        case let (.caps, .coreGetCapsInfo(status, caps)):
            if status != .ok { actions.append(.log(.warning, "CORE_GET_CAPS_INFO failed: \(status); continuing without capabilities")) }
            capabilities = status == .ok ? caps : []
            if let deviceInfo {
                actions.append(.deviceIdentified(deviceInfo, capabilities: capabilities))
                let firmware = deviceInfo.qorvo.map { ", firmware \($0.firmwareVersionString)" } ?? ""
                actions.append(.log(.info, "device answers UCI \(deviceInfo.uciVersion)\(firmware)"))
            }
            if configuration.peers.isEmpty {
                // Nothing configured to range with: the device waits for requested sessions.
                phase = .idle
                setState(.idle, &actions)
                actions.append(.log(.info, "no peers configured; the device waits for requested sessions"))
            } else {
                send(.sessionInit, .sessionInit(sessionID: configuration.sessionID, sessionType: .firaRangingSession), now: now, &actions)
            }
        case let (.sessionInit, .sessionInit(_, handle)):
            let handle = handle ?? configuration.sessionID
            sessionHandle = handle
            pendingPeers = nil
            send(.setAppConfig, .sessionSetAppConfig(sessionHandle: handle, configuration.appConfiguration), now: now, &actions)
        case (.setAppConfig, _):
            if stopRequested {
                phase = .idle
                setState(.idle, &actions)
            } else if let handle = sessionHandle {
                send(.start, .sessionStart(sessionHandle: handle), now: now, &actions)
            }
        case (.start, _):
            phase = .ranging
            // A link that carried a session to ranging works: after a drop it is reopened at once.
            openBackoff = timing.backoffInitial
            lastNotificationAt = now
            rangingSince = now
            rangingSettled = false
            setState(.ranging, &actions)
            actions.append(.log(.info, "ranging with \(configuration.peers.map { MacAddress.short($0).description }.joined(separator: ", "))"))
        case (.stop, _):
            sessionMayBeActive = false
            phase = .idle
            setState(.idle, &actions)
        case (.multicastUpdate, _):
            actions.append(.log(.info, "peers updated without a restart"))
            applyPendingPeers(now: now, &actions)
        case (.windDownStop, _), (.windDownDeinit, _):
            windDownStepDone(flight.step, now: now, &actions)
        case let (.requested(id, step), response):
            requestedStepDone(id, step, response, now: now, &actions)
        default:
            actions.append(.log(.debug, "ignored \(response.raw.name)"))
        }
    }

    // MARK: Notifications

    private mutating func notify(_ notification: UCINotification, now: Double, _ actions: inout [Action]) {
        if case let .sessionInfo(info) = notification {
            return rangingRound(info, now: now, &actions)
        }
        // Promised by the command in flight: the step may be done.
        if case var .command(flight) = phase, let index = flight.awaiting.firstIndex(where: { $0.matches(notification) }) {
            flight.awaiting.remove(at: index)
            phase = .command(flight)
            return completeIfDone(now: now, &actions)
        }
        // Caused by one of our commands but too late to be waited for: old news.
        lateStatuses.removeAll { $0.until < now }
        if let index = lateStatuses.firstIndex(where: { $0.status.matches(notification, managementOnly: true) }) {
            lateStatuses.remove(at: index)
            actions.append(.log(.debug, "late \(notification.raw.name) (\(lateStatusDetail(notification))) ignored"))
            return
        }
        switch DeviceNews(notification, ranging: state == .ranging) {
        case .deviceError?:
            actions.append(.log(.warning, "the device reports DEVICE_STATE_ERROR; resetting it"))
            if state == .ranging { actions.append(.sessionStopped(reason: nil)) }
            // Its sessions are lost and it accepts nothing but a reset: nothing to wind down.
            if isOpen { beginInitialization(now: now, &actions) }
            return
        case .selfReset?:
            actions.append(.log(.warning, "the device reset itself; initialising it again"))
            actions.append(.sessionStopped(reason: nil))
            beginInitialization(now: now, &actions)
            return
        case let .sessionEnded(handle, sessionState, reason)? where handle == sessionHandle:
            return sessionStatus(handle, sessionState, reason, now: now, &actions)
        case let .sessionEnded(handle, sessionState, reason)? where requestedID(of: handle) != nil:
            return requestedStatus(requestedID(of: handle)!, sessionState, reason, &actions)
        case .sessionEnded?, nil:
            break
        }
        switch notification {
        case let .sessionStatus(_, sessionState, reason):
            actions.append(.log(.debug, "stale SESSION_STATUS_NTF(\(sessionState), \(reason)) ignored"))
        case let .coreGenericError(status):
            // A device can send these once per packet: throttled, with counts.
            for line in genericErrors.lines(for: "device reports CORE_GENERIC_ERROR \(status)", at: now) { actions.append(.log(.warning, line)) }
            if status == .commandRetry, case let .command(flight) = phase, flight.response == nil {
                send(flight.step, flight.command, now: now, attempt: flight.attempt + 1, &actions)
            }
        case let .sessionUpdateControllerMulticastList(update):
            for controlee in update.controlees where controlee.status != .ok {
                for line in multicastWarnings.lines(for: "multicast list: \(MacAddress.short(controlee.shortAddress)) \(controlee.status)", at: now) {
                    actions.append(.log(.warning, line))
                }
            }
        default:
            break
        }
    }

    /// An IDLE or DEINIT of our session that no command of ours explains.
    private mutating func sessionStatus(_ handle: UInt32, _ sessionState: SessionState, _ reason: ReasonCode, now: Double,
                                        _ actions: inout [Action]) {
        if sessionState == .deinitialized {
            sessionHandle = nil
        }
        sessionMayBeActive = false
        // The device goes READY with its last session: that is not a reset.
        expectLate(.device(.ready), now: now)
        if state == .ranging {
            actions.append(.log(.warning, "the device stopped the session: \(reason)"))
            actions.append(.sessionStopped(reason: reason))
            if sessionState == .deinitialized {
                beginInitialization(now: now, &actions)
            } else if now - rangingSince < timing.stableAfter {
                // Stopped again right after a start: do not spin, back off.
                fail("the device keeps stopping the session (\(reason))", now: now, &actions)
            } else {
                send(.start, .sessionStart(sessionHandle: handle), now: now, &actions)
            }
        } else if case .command = phase, reason != .stateChangeWithSessionManagementCommands {
            // The session ended while being set up, with a cause: the configuration does not work.
            fail("the device stopped the session while it was set up: \(reason)", now: now, &actions)
        } else {
            actions.append(.log(.debug, "SESSION_STATUS_NTF(\(sessionState), \(reason)) while not ranging"))
        }
    }

    private mutating func rangingRound(_ info: SessionInfo, now: Double, _ actions: inout [Action]) {
        if info.sessionHandle != sessionHandle, let id = requestedID(of: info.sessionHandle) {
            provesStart(info, now: now, &actions)
            if requested[id]?.ranging == true { actions.append(.measurements(info)) }
            return
        }
        guard info.sessionHandle == sessionHandle else { return }
        provesStart(info, now: now, &actions)
        guard state == .ranging else { return }
        lastNotificationAt = now
        if !rangingSettled, now - rangingSince >= timing.stableAfter {
            rangingSettled = true
            failedInitializations = 0
            initBackoff = timing.backoffInitial
        }
        actions.append(.measurements(info))
    }

    /// A ranging round is proof that SESSION_START took, whatever became of its notification.
    private mutating func provesStart(_ info: SessionInfo, now: Double, _ actions: inout [Action]) {
        if case var .command(flight) = phase, flight.step == .start || flight.step.isRequestedStart,
           let index = flight.awaiting.firstIndex(of: .session(.active, handle: info.sessionHandle)) {
            expectLate(flight.awaiting.remove(at: index), now: now)
            phase = .command(flight)
            completeIfDone(now: now, &actions)
        }
    }

    private func lateStatusDetail(_ notification: UCINotification) -> String {
        switch notification {
        case let .coreDeviceStatus(state): "\(state)"
        case let .sessionStatus(_, state, reason): "\(state), \(reason)"
        default: ""
        }
    }

    // MARK: Peers

    private mutating func reconfigure(_ new: RangingSessionConfiguration, now: Double, _ actions: inout [Action]) {
        guard new != configuration else { return }
        let old = configuration
        if phase == .ranging, let handle = sessionHandle, new.differsOnlyInPeers(from: old) {
            let removed = old.peers.filter { !new.peers.contains($0) }
            let added = new.peers.filter { !old.peers.contains($0) }
            pendingPeers = new.peers
            configuration.peers = old.peers
            if !removed.isEmpty {
                send(.multicastUpdate, .sessionUpdateControllerMulticastList(
                    sessionHandle: handle, action: .delete, controlees: removed.map { Controlee(shortAddress: $0) }), now: now, &actions)
                pendingAdds = added
            } else {
                send(.multicastUpdate, .sessionUpdateControllerMulticastList(
                    sessionHandle: handle, action: .add, controlees: added.map { Controlee(shortAddress: $0) }), now: now, &actions)
                pendingAdds = []
            }
            return
        }
        configuration = new
        if isOpen {
            actions.append(.log(.info, "session configuration changed; restarting the session"))
            reinitialize(now: now, &actions)
        }
    }

    private mutating func applyPendingPeers(now: Double, _ actions: inout [Action]) {
        if !pendingAdds.isEmpty, let handle = sessionHandle {
            let added = pendingAdds
            pendingAdds = []
            send(.multicastUpdate, .sessionUpdateControllerMulticastList(
                sessionHandle: handle, action: .add, controlees: added.map { Controlee(shortAddress: $0) }), now: now, &actions)
            return
        }
        if let peers = pendingPeers { configuration.peers = peers }
        pendingPeers = nil
        phase = .ranging
        lastNotificationAt = now
    }
}

extension DeviceSession {
    // MARK: Requested sessions

    private mutating func openRequested(_ new: RangingSessionConfiguration, _ actions: inout [Action]) {
        let id = new.sessionID
        if requested[id]?.closing != nil {
            // Its owner let the old one go and asked again: the new one opens after the close.
            requested[id]?.reopening = new
            return
        }
        if requested[id] != nil || (id == configuration.sessionID && !configuration.peers.isEmpty) {
            actions.append(.requestedSession(sessionID: id, .failed("session id \(id) is in use")))
            return
        }
        guard isOpen, phase != .shutDown else {
            actions.append(.requestedSession(sessionID: id, .failed("no device (\(state))")))
            return
        }
        requested[id] = RequestedSession(configuration: new)
        requestedQueue.append(.open(id))
    }

    private func requestedID(of handle: UInt32) -> UInt32? {
        requested.first { $0.value.handle == handle }?.key
    }

    /// Starts the next piece of requested work when the configured session rests.
    private mutating func startRequestedWork(now: Double, _ actions: inout [Action]) {
        guard phase == .ranging || phase == .idle, !requestedQueue.isEmpty else { return }
        restingPhase = phase
        let work = requestedQueue.removeFirst()
        switch work {
        case let .open(id):
            guard let session = requested[id] else { return startRequestedWork(now: now, &actions) }
            send(.requested(id, .initialize), .sessionInit(sessionID: session.sessionID, sessionType: .firaRangingSession), now: now, &actions)
        case let .update(id, add, remove):
            guard let session = requested[id], session.ranging, let handle = session.handle else {
                actions.append(.requestedSession(sessionID: id, .failed("session \(id) is not ranging")))
                return startRequestedWork(now: now, &actions)
            }
            if !remove.isEmpty {
                if !add.isEmpty { requestedQueue.insert(.update(id, add: add, remove: []), at: 0) }
                send(.requested(id, .remove(remove)), .sessionUpdateControllerMulticastList(
                    sessionHandle: handle, action: .delete, controlees: remove.map { Controlee(shortAddress: $0) }), now: now, &actions)
            } else {
                send(.requested(id, .add(add)), .sessionUpdateControllerMulticastList(
                    sessionHandle: handle, action: .add, controlees: add.map { Controlee(shortAddress: $0) }), now: now, &actions)
            }
        case let .close(id):
            guard let session = requested[id] else { return startRequestedWork(now: now, &actions) }
            guard let handle = session.handle else {
                endRequested(id, session.closing ?? "closed", &actions)
                return startRequestedWork(now: now, &actions)
            }
            if session.mayBeActive {
                send(.requested(id, .stop), .sessionStop(sessionHandle: handle), now: now, &actions)
            } else {
                send(.requested(id, .deinitialize), .sessionDeinit(sessionHandle: handle), now: now, &actions)
            }
        }
    }

    /// Back to the configured session's resting phase, and on to the next piece of work.
    private mutating func rest(now: Double, _ actions: inout [Action]) {
        phase = restingPhase
        // The configured session's silence while we were busy is ours, not the device's.
        if phase == .ranging { lastNotificationAt = max(lastNotificationAt, now) }
        startRequestedWork(now: now, &actions)
    }

    private mutating func requestedStepDone(_ id: UInt32, _ step: RequestedStep, _ response: UCIResponse, now: Double,
                                            _ actions: inout [Action]) {
        guard var session = requested[id] else { return rest(now: now, &actions) }
        switch (step, response) {
        case let (.initialize, .sessionInit(_, handle)):
            let handle = handle ?? id
            session.handle = handle
            requested[id] = session
            send(.requested(id, .configure), .sessionSetAppConfig(sessionHandle: handle, session.configuration.appConfiguration), now: now, &actions)
        case (.configure, _):
            send(.requested(id, .start), .sessionStart(sessionHandle: session.handle ?? id), now: now, &actions)
            requested[id]?.mayBeActive = true
        case (.start, _):
            requested[id]?.ranging = true
            actions.append(.requestedSession(sessionID: id, .ranging))
            actions.append(.log(.info, "session \(id) ranging with \(session.configuration.peers.map { MacAddress.short($0).description }.joined(separator: ", "))"))
            rest(now: now, &actions)
        case let (.add(addresses), _):
            requested[id]?.configuration.peers += addresses.filter { !session.configuration.peers.contains($0) }
            actions.append(.requestedSession(sessionID: id, .updated))
            rest(now: now, &actions)
        case let (.remove(addresses), _):
            requested[id]?.configuration.peers.removeAll { addresses.contains($0) }
            actions.append(.requestedSession(sessionID: id, .updated))
            rest(now: now, &actions)
        case (.stop, _):
            requested[id]?.mayBeActive = false
            requested[id]?.ranging = false
            send(.requested(id, .deinitialize), .sessionDeinit(sessionHandle: session.handle ?? id), now: now, &actions)
        case (.deinitialize, _):
            endRequested(id, session.closing ?? "closed", &actions)
            rest(now: now, &actions)
        default:
            rest(now: now, &actions)
        }
    }

    /// A requested step failed: opening gives up (and cleans up what the device holds), an
    /// update leaves the session as it was, a failed stop or deinit still ends it.
    private mutating func requestedStepFailed(_ id: UInt32, _ step: RequestedStep, _ problem: String, now: Double,
                                              _ actions: inout [Action]) {
        guard let session = requested[id] else { return rest(now: now, &actions) }
        switch step {
        case .initialize, .configure, .start:
            actions.append(.log(.warning, "session \(id): \(problem)"))
            actions.append(.requestedSession(sessionID: id, .failed(problem)))
            if session.handle == nil {
                requested[id] = nil
            } else {
                requested[id]?.closing = problem
                requested[id]?.mayBeActive = step == .start
                requestedQueue.insert(.close(id), at: 0)
            }
        case .add, .remove:
            actions.append(.log(.warning, "session \(id): \(problem)"))
            actions.append(.requestedSession(sessionID: id, .failed(problem)))
        case .stop:
            requested[id]?.mayBeActive = false
            requested[id]?.ranging = false
            requestedQueue.insert(.close(id), at: 0)
        case .deinitialize:
            endRequested(id, session.closing ?? "closed", &actions)
        }
        rest(now: now, &actions)
    }

    /// An IDLE or DEINIT of a requested session that no command of ours explains.
    private mutating func requestedStatus(_ id: UInt32, _ sessionState: SessionState, _ reason: ReasonCode, _ actions: inout [Action]) {
        guard let session = requested[id], session.ranging else { return }
        actions.append(.log(.warning, "the device stopped session \(id): \(reason)"))
        requested[id]?.ranging = false
        requested[id]?.mayBeActive = false
        if sessionState == .deinitialized {
            endRequested(id, "the device stopped the session: \(reason)", &actions)
        } else {
            requested[id]?.closing = "the device stopped the session: \(reason)"
            requestedQueue.append(.close(id))
        }
    }

    /// A requested session is gone from the device. One asked for again meanwhile opens now;
    /// its owner let the old one go already, so only the new one's news follows.
    private mutating func endRequested(_ id: UInt32, _ reason: String, reopens: Bool = true, _ actions: inout [Action]) {
        guard let ended = requested.removeValue(forKey: id) else { return }
        if reopens, let again = ended.reopening {
            requested[id] = RequestedSession(configuration: again)
            requestedQueue.append(.open(id))
            return
        }
        actions.append(.requestedSession(sessionID: id, .closed(reason)))
    }

    /// The device lost every session (a reset, an unplug): each requested one is closed, and
    /// one asked for again with it.
    private mutating func forgetRequested(_ reason: String, _ actions: inout [Action]) {
        requestedQueue = []
        for id in requested.keys.sorted() { endRequested(id, reason, reopens: false, &actions) }
    }
}

private func format(_ seconds: Double) -> String {
    seconds == Double(Int(seconds)) ? String(Int(seconds)) : String(Double(Int(seconds * 10)) / 10)
}

private extension String {
    func replacingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
