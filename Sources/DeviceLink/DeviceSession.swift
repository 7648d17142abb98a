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
    public enum Event: Sendable {
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
        /// peers' links as lost with cause `session_stopped`.
        case sessionStopped(reason: ReasonCode)
        case log(LogLevel, String)
        /// The session is wound down after `shutdownRequested`: close the transport for good.
        case shutDown
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
        /// SESSION_STOP and SESSION_DEINIT before a reset or on shutdown.
        case windDownStop, windDownDeinit
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
            if state == .ranging { actions.append(.sessionStopped(reason: 0xFF)) }
            sessionHandle = nil
            sessionMayBeActive = false
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
            if isOpen && sessionHandle != nil {
                // Not ranging from here on: no measurement is reported while the session winds down.
                setState(.idle, &actions)
                windDownGoal = .shutDown
                windDown(now: now, &actions)
            } else {
                finishShutdown(&actions)
            }
        }
        return actions
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
        case .windDownStop, .windDownDeinit: timing.windDownTimeout
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
        setState(.initializing, &actions)
        send(.reset, .coreDeviceReset(resetConfig: 0), now: now, &actions)
    }

    /// Initialises again, winding down the session the device holds first.
    private mutating func reinitialize(now: Double, _ actions: inout [Action]) {
        guard sessionHandle != nil else { return beginInitialization(now: now, &actions) }
        setState(.initializing, &actions)
        windDownGoal = .reinitialize
        windDown(now: now, &actions)
    }

    /// SESSION_STOP (when the session may be ranging), then SESSION_DEINIT, then the goal.
    private mutating func windDown(now: Double, _ actions: inout [Action]) {
        guard let handle = sessionHandle else { return windDownFinished(now: now, &actions) }
        if sessionMayBeActive {
            send(.windDownStop, .sessionStop(sessionHandle: handle), now: now, &actions)
        } else {
            send(.windDownDeinit, .sessionDeinit(sessionHandle: handle), now: now, &actions)
        }
    }

    private mutating func windDownStepDone(_ step: Step, now: Double, _ actions: inout [Action]) {
        if step == .windDownStop {
            sessionMayBeActive = false
            windDown(now: now, &actions)
        } else {
            sessionHandle = nil
            windDownFinished(now: now, &actions)
        }
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
            actions.append(.sessionStopped(reason: 0xFF))
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
            send(.sessionInit, .sessionInit(sessionID: configuration.sessionID, sessionType: .firaRangingSession), now: now, &actions)
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
        switch notification {
        case .coreDeviceStatus(.error):
            actions.append(.log(.warning, "the device reports DEVICE_STATE_ERROR; resetting it"))
            if state == .ranging { actions.append(.sessionStopped(reason: 0xFF)) }
            // Its sessions are lost and it accepts nothing but a reset: nothing to wind down.
            if isOpen { beginInitialization(now: now, &actions) }
        case .coreDeviceStatus(.ready) where state == .ranging:
            // READY while ranging, unasked: the device reset itself and the session is gone.
            actions.append(.log(.warning, "the device reset itself; initialising it again"))
            actions.append(.sessionStopped(reason: 0xFF))
            beginInitialization(now: now, &actions)
        case let .sessionStatus(handle, sessionState, reason) where handle == sessionHandle:
            sessionStatus(handle, sessionState, reason, now: now, &actions)
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

    /// A SESSION_STATUS_NTF for our session that no command of ours explains.
    private mutating func sessionStatus(_ handle: UInt32, _ sessionState: SessionState, _ reason: ReasonCode, now: Double,
                                        _ actions: inout [Action]) {
        guard sessionState == .idle || sessionState == .deinitialized else {
            actions.append(.log(.debug, "stale SESSION_STATUS_NTF(\(sessionState), \(reason)) ignored"))
            return
        }
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
        guard info.sessionHandle == sessionHandle else { return }
        // A ranging round is proof that SESSION_START took, whatever became of its notification.
        if case var .command(flight) = phase, flight.step == .start,
           let index = flight.awaiting.firstIndex(of: .session(.active, handle: info.sessionHandle)) {
            expectLate(flight.awaiting.remove(at: index), now: now)
            phase = .command(flight)
            completeIfDone(now: now, &actions)
        }
        guard state == .ranging else { return }
        lastNotificationAt = now
        if !rangingSettled, now - rangingSince >= timing.stableAfter {
            rangingSettled = true
            failedInitializations = 0
            initBackoff = timing.backoffInitial
        }
        actions.append(.measurements(info))
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

private func format(_ seconds: Double) -> String {
    seconds == Double(Int(seconds)) ? String(Int(seconds)) : String(Double(Int(seconds * 10)) / 10)
}

private extension String {
    func replacingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
