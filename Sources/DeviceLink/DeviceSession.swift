import UCI

/// The UCI session state machine: it brings a DWM3001C from power-on to ranging and keeps it
/// there. Reset → device info → caps → SESSION_INIT → SESSION_SET_APP_CONFIG → SESSION_START,
/// one command in flight at a time with a timeout and bounded retries; notifications may
/// arrive before or after a response.
///
/// It is pure: events and the current time go in, actions come out (commands to write, state
/// changes, measurements, log lines). `DeviceLinkService` owns the transport and feeds it; tests
/// and replays can drive it from tables. It recovers by itself from a device reset or ERROR
/// state, a session the device stopped, a command timeout, a rejected configuration (with
/// back-off) and an unplug (reopening with back-off until the port is back).
public struct DeviceSession: Sendable {
    /// What happened: the transport's fate, a message from the device, time passing, or a request.
    public enum Event: Sendable {
        case opened(port: String)
        /// `absent` when the port does not exist (not plugged in), else a real error (permissions).
        case openFailed(String, absent: Bool)
        case disconnected(String)
        case received(UCIMessage)
        case tick
        case reconfigure(RangingSessionConfiguration)
        case startRequested
        case stopRequested
        case resetRequested
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
        case measurements(SessionInfo)
        /// The device stopped ranging without being asked: the proximity engine treats the
        /// peers' links as lost with cause `session_stopped`.
        case sessionStopped(reason: ReasonCode)
        case log(LogLevel, String)
    }

    /// Timeouts and back-off, in seconds.
    public struct Timing: Sendable, Equatable {
        public var commandTimeout: Double = 2
        /// Resends of a command that timed out or got COMMAND_RETRY before giving up on it.
        public var commandRetries = 2
        public var backoffInitial: Double = 1
        public var backoffMaximum: Double = 60
        /// Initialisations that may fail in a row before the port is closed and reopened.
        public var failuresBeforeReopen = 3
        public init() {}
    }

    private enum Step: Equatable, Sendable {
        case reset, deviceInfo, caps, sessionInit, setAppConfig, start, stop, multicastUpdate
    }

    private enum Phase: Equatable, Sendable {
        /// No transport; open at `retryAt`.
        case closed(retryAt: Double)
        case opening
        /// A command is in flight.
        case command(Step, UCICommand, sentAt: Double, attempt: Int)
        case ranging
        case idle
        /// Transport open but the device misbehaved; initialise again at `until`.
        case backoff(until: Double)
    }

    public private(set) var configuration: RangingSessionConfiguration
    public let timing: Timing
    public private(set) var state: DeviceLinkState = .absent(nil)
    /// The session handle of the running session (FiRa 2.0), or its id (FiRa 1.x).
    public private(set) var sessionHandle: UInt32?
    public private(set) var deviceInfo: DeviceInfo?
    public private(set) var capabilities: [ConfigTLV] = []

    private var phase: Phase = .closed(retryAt: 0)
    private var openBackoff: Double
    private var initBackoff: Double
    private var failedInitializations = 0
    private var lastOpenFailure: String?
    private var lastNotificationAt: Double = 0
    private var restartedAt: Double = -.infinity
    private var stopRequested = false
    private var pendingPeers: [UInt16]?

    public init(configuration: RangingSessionConfiguration, timing: Timing = Timing()) {
        self.configuration = configuration
        self.timing = timing
        openBackoff = timing.backoffInitial
        initBackoff = timing.backoffInitial
    }

    /// No ranging data for this long while ranging means the device went quiet: start over.
    var rangingWatchdog: Double { max(3, 10 * Double(configuration.rangingIntervalMilliseconds) / 1000) }

    /// When `handle(.tick)` next has something to do (a retry, a command timeout, the end of a
    /// back-off, the ranging watchdog); nil while only an input can move the session on. The
    /// link sleeps until then instead of ticking at a fixed rate.
    public var nextDeadline: Double? {
        switch phase {
        case let .closed(retryAt): retryAt
        case let .command(_, _, sentAt, _): sentAt + timing.commandTimeout
        case let .backoff(until): until
        case .ranging: lastNotificationAt + rangingWatchdog
        case .opening, .idle: nil
        }
    }

    public mutating func handle(_ event: Event, now: Double) -> [Action] {
        var actions: [Action] = []
        switch event {
        case let .opened(port):
            lastOpenFailure = nil
            openBackoff = timing.backoffInitial
            actions.append(.log(.info, "opened \(port)"))
            beginInitialization(now: now, &actions)
        case let .openFailed(reason, absent):
            if reason != lastOpenFailure {
                actions.append(.log(absent ? .warning : .error, "cannot open the device: \(reason); retrying with back-off"))
                lastOpenFailure = reason
            }
            setState(absent ? .absent(reason) : .error(reason), &actions)
            phase = .closed(retryAt: now + openBackoff)
            openBackoff = min(openBackoff * 2, timing.backoffMaximum)
        case let .disconnected(reason):
            actions.append(.log(.warning, "device disconnected: \(reason)"))
            if state == .ranging { actions.append(.sessionStopped(reason: 0xFF)) }
            sessionHandle = nil
            setState(.absent(reason), &actions)
            phase = .closed(retryAt: now + openBackoff)
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
            if isOpen { beginInitialization(now: now, &actions) }
        }
        return actions
    }

    private var isOpen: Bool {
        switch phase {
        case .closed, .opening: false
        default: true
        }
    }

    private mutating func setState(_ new: DeviceLinkState, _ actions: inout [Action]) {
        guard new != state else { return }
        state = new
        actions.append(.stateChanged(new))
    }

    private mutating func send(_ step: Step, _ command: UCICommand, now: Double, attempt: Int = 0, _ actions: inout [Action]) {
        phase = .command(step, command, sentAt: now, attempt: attempt)
        actions.append(.send(command))
    }

    private mutating func beginInitialization(now: Double, _ actions: inout [Action]) {
        sessionHandle = nil
        setState(.initializing, &actions)
        send(.reset, .coreDeviceReset(resetConfig: 0), now: now, &actions)
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
        case let .command(step, command, sentAt, attempt) where now - sentAt >= timing.commandTimeout:
            if attempt < timing.commandRetries {
                actions.append(.log(.warning, "no response to \(command.raw.name) within \(format(timing.commandTimeout)) s; resending"))
                send(step, command, now: now, attempt: attempt + 1, &actions)
            } else {
                fail("the device did not answer \(command.raw.name)", now: now, &actions)
            }
        case let .backoff(until) where now >= until:
            if failedInitializations >= timing.failuresBeforeReopen {
                actions.append(.log(.warning, "the device failed to initialise \(failedInitializations) times; reopening the port"))
                failedInitializations = 0
                phase = .closed(retryAt: now)
                actions.append(.close)
            } else {
                beginInitialization(now: now, &actions)
            }
        case .ranging where now - lastNotificationAt >= rangingWatchdog:
            actions.append(.log(.warning, "no ranging data for \(format(now - lastNotificationAt)) s; initialising the device again"))
            actions.append(.sessionStopped(reason: 0xFF))
            beginInitialization(now: now, &actions)
        default:
            break
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

    private mutating func respond(_ response: UCIResponse, now: Double, _ actions: inout [Action]) {
        guard case let .command(step, command, _, attempt) = phase, command.opcode == response.opcode else {
            actions.append(.log(.debug, "ignored unexpected \(response.raw.name)"))
            return
        }
        let status = response.status ?? .unknown
        if status == .commandRetry {
            if attempt < timing.commandRetries {
                send(step, command, now: now, attempt: attempt + 1, &actions)
            } else {
                fail("the device kept asking to retry \(command.raw.name)", now: now, &actions)
            }
            return
        }
        switch (step, response) {
        case (.reset, _):
            guard status == .ok else { return fail("CORE_DEVICE_RESET failed: \(status)", now: now, &actions) }
            send(.deviceInfo, .coreGetDeviceInfo, now: now, &actions)
        case let (.deviceInfo, .coreGetDeviceInfo(_, info)):
            guard status == .ok, let info else { return fail("CORE_GET_DEVICE_INFO failed: \(status)", now: now, &actions) }
            deviceInfo = info
            send(.caps, .coreGetCapsInfo, now: now, &actions)
        case let (.caps, .coreGetCapsInfo(_, caps)):
            if status != .ok { actions.append(.log(.warning, "CORE_GET_CAPS_INFO failed: \(status); continuing without capabilities")) }
            capabilities = status == .ok ? caps : []
            if let deviceInfo {
                actions.append(.deviceIdentified(deviceInfo, capabilities: capabilities))
                let firmware = deviceInfo.qorvo.map { ", firmware \($0.firmwareVersionString)" } ?? ""
                actions.append(.log(.info, "device answers UCI \(deviceInfo.uciVersion)\(firmware)"))
            }
            send(.sessionInit, .sessionInit(sessionID: configuration.sessionID, sessionType: .firaRangingSession), now: now, &actions)
        case let (.sessionInit, .sessionInit(_, handle)):
            guard status == .ok else { return fail("SESSION_INIT of session \(configuration.sessionID) failed: \(status)", now: now, &actions) }
            let handle = handle ?? configuration.sessionID
            sessionHandle = handle
            pendingPeers = nil
            send(.setAppConfig, .sessionSetAppConfig(sessionHandle: handle, configuration.appConfiguration), now: now, &actions)
        case let (.setAppConfig, .sessionSetAppConfig(_, failed)):
            guard status == .ok, failed.isEmpty else {
                let names = failed.map { "\(AppConfigID(rawValue: $0.id)) (\($0.status))" }.joined(separator: ", ")
                return fail("the device rejected the session configuration: " + (names.isEmpty ? "\(status)" : names), now: now, &actions)
            }
            if stopRequested {
                phase = .idle
                setState(.idle, &actions)
            } else if let handle = sessionHandle {
                send(.start, .sessionStart(sessionHandle: handle), now: now, &actions)
            }
        case (.start, _):
            guard status == .ok else { return fail("SESSION_START failed: \(status)", now: now, &actions) }
            phase = .ranging
            lastNotificationAt = now
            restartedAt = now
            failedInitializations = 0
            initBackoff = timing.backoffInitial
            setState(.ranging, &actions)
            actions.append(.log(.info, "ranging with \(configuration.peers.map { MacAddress.short($0).description }.joined(separator: ", "))"))
        case (.stop, _):
            guard status == .ok else { return fail("SESSION_STOP failed: \(status)", now: now, &actions) }
            phase = .idle
            setState(.idle, &actions)
        case (.multicastUpdate, _):
            guard status == .ok else {
                actions.append(.log(.warning, "multicast list update failed: \(status); restarting the session"))
                return beginInitialization(now: now, &actions)
            }
            actions.append(.log(.info, "peers updated without a restart"))
            applyPendingPeers(now: now, &actions)
        default:
            actions.append(.log(.debug, "ignored \(response.raw.name)"))
        }
    }

    private mutating func notify(_ notification: UCINotification, now: Double, _ actions: inout [Action]) {
        switch notification {
        case let .sessionInfo(info):
            guard info.sessionHandle == sessionHandle else { return }
            if phase == .ranging { lastNotificationAt = now }
            actions.append(.measurements(info))
        case .coreDeviceStatus(.error):
            actions.append(.log(.warning, "the device reports DEVICE_STATE_ERROR; resetting it"))
            if state == .ranging { actions.append(.sessionStopped(reason: 0xFF)) }
            if isOpen { beginInitialization(now: now, &actions) }
        case .coreDeviceStatus(.ready) where phase == .ranging:
            // READY while ranging, unasked: the device reset itself and the session is gone.
            actions.append(.log(.warning, "the device reset itself; initialising it again"))
            actions.append(.sessionStopped(reason: 0xFF))
            beginInitialization(now: now, &actions)
        case let .sessionStatus(handle, sessionState, reason) where handle == sessionHandle && phase == .ranging:
            guard sessionState == .idle || sessionState == .deinitialized else { return }
            actions.append(.log(.warning, "the device stopped the session: \(reason)"))
            actions.append(.sessionStopped(reason: reason))
            if sessionState == .deinitialized {
                beginInitialization(now: now, &actions)
            } else if now - restartedAt < 5 {
                // Stopped again right after a restart: do not spin, back off.
                fail("the device keeps stopping the session (\(reason))", now: now, &actions)
            } else {
                send(.start, .sessionStart(sessionHandle: handle), now: now, &actions)
            }
        case let .coreGenericError(status):
            actions.append(.log(.warning, "device reports CORE_GENERIC_ERROR \(status)"))
            if status == .commandRetry, case let .command(step, command, _, attempt) = phase {
                send(step, command, now: now, attempt: attempt + 1, &actions)
            }
        case let .sessionUpdateControllerMulticastList(update):
            for controlee in update.controlees where controlee.status != .ok {
                actions.append(.log(.warning, "multicast list: \(MacAddress.short(controlee.shortAddress)) \(controlee.status)"))
            }
        default:
            break
        }
    }

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
            beginInitialization(now: now, &actions)
        }
    }

    private var pendingAdds: [UInt16] = []

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
