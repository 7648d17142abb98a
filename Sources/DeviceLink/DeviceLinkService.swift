import Vocabulary
#if canImport(Glibc)
import Glibc
#endif
import EventLoop
import UCI

/// The device link at work, on the agent's event loop: owns the transport, the reassembler and
/// `DeviceSession`, reads what the device sends when the loop says it is readable, and writes the
/// commands the session asks for. Everything it learns goes to `onEvent` as ``DeviceReport``s, on
/// the loop's thread; the bytes become reports in ``DeviceIntake``, as in `replay`.
///
/// No thread of its own: a notification is read, decoded and handed on in the wake-up that
/// reported it, and an idle link sleeps until the session's next deadline (a retry, a command
/// timeout, the ranging watchdog) or the 100 ms after which the firmware drops a partial packet.
public final class DeviceLinkService {

    /// Where the device is: a path or `tcp://…` opened as given, or `auto` for the first port
    /// that looks like a DWM3001C (USB 1915:520F), confirmed by its UCI answers.
    public let port: String
    private let loop: EventLoop
    private let options: TransportOptions
    private let onEvent: (DeviceReport) -> Void
    private var session: DeviceSession
    private var transport: (any ByteTransport)?
    private var transportName = ""
    private var watch: EventLoop.Watch?
    private var intake = DeviceIntake()
    private var lastByteAt = 0.0
    private var autoIndex = 0
    /// Reused for every read: no allocation per notification.
    private var readBuffer = [UInt8](repeating: 0, count: 4096)
    private var pendingItems: [DeviceIntake.Item] = []
    /// The timer for the session's next deadline, and that deadline.
    private var sessionTimer: (timer: EventLoop.Timer, at: Double)?
    private var partialPacketTimer: EventLoop.Timer?
    private var running = false

    public init(loop: EventLoop, port: String, configuration: RangingSessionConfiguration, options: TransportOptions = TransportOptions(),
                timing: DeviceSession.Timing = DeviceSession.Timing(), onEvent: @escaping (DeviceReport) -> Void) {
        self.loop = loop
        self.port = port
        self.options = options
        self.onEvent = onEvent
        session = DeviceSession(configuration: configuration, timing: timing)
    }

    /// Starts reaching for the device; it keeps trying until `stop()`.
    public func start() {
        guard !running else { return }
        running = true
        handle(.tick)
    }

    /// Hands a request to the session: start/stop/reset, or a new configuration. It is handled
    /// before the loop next waits, not inside the caller (which may be this link's own event).
    public func send(_ event: DeviceSession.Event) {
        loop.soon { [weak self] in
            guard let self, running else { return }
            handle(event)
        }
    }

    deinit {
        stop()
    }

    /// Winds the session down (SESSION_STOP, SESSION_DEINIT, each waited for briefly) and closes
    /// the device; no bring-up starts after it. `isShutDown` says when it is done: the caller
    /// runs the loop until then, or until its own deadline, and then calls `stop()`.
    public func shutDown() {
        guard running else { return }
        handle(.shutdownRequested)
    }

    /// True once `shutDown()` has finished (or the link is stopped).
    public var isShutDown: Bool { !running || session.isShutDown }

    /// Closes the device and stops every timer.
    public func stop() {
        guard running else { return }
        running = false
        for summary in intake.flushLogs(at: loop.now) { onEvent(summary) }
        closeTransport()
        if let sessionTimer { loop.cancel(sessionTimer.timer) }
        sessionTimer = nil
        if let partialPacketTimer { loop.cancel(partialPacketTimer) }
        partialPacketTimer = nil
    }

    /// The session's state (for tests and `doctor`).
    public var state: DeviceLinkState { session.state }

    // MARK: Session

    private func handle(_ event: DeviceSession.Event) {
        perform(session.handle(event, now: loop.now))
        armSessionTimer()
    }

    /// Keeps one timer at the session's next deadline. A deadline that moved later (the ranging
    /// watchdog, pushed back by every notification) leaves the earlier timer in place: it fires,
    /// finds nothing due and re-arms, once per watchdog period rather than once per notification.
    private func armSessionTimer() {
        guard running, let deadline = session.nextDeadline else { return }
        if let current = sessionTimer {
            if current.at <= deadline { return }
            loop.cancel(current.timer)
        }
        let timer = loop.schedule(at: deadline) { [unowned self] in
            sessionTimer = nil
            handle(.tick)
        }
        sessionTimer = (timer, deadline)
    }

    private func perform(_ actions: [DeviceSession.Action]) {
        for action in actions {
            switch action {
            case .open:
                open()
            case .close:
                closeTransport()
            case let .send(command):
                do {
                    try transport?.write(command.raw.encoded())
                } catch {
                    disconnect(error.description)
                }
            case let .stateChanged(state):
                onEvent(.stateChanged(state, port: transportName.isEmpty ? port : transportName))
            case let .deviceIdentified(info, capabilities):
                onEvent(.deviceIdentified(info, capabilities: capabilities))
            case .measurements:
                break // reported by the intake, with its receive time and raw message, in `report`
            case let .sessionStopped(reason):
                onEvent(.sessionStopped(reason))
            case let .requestedSession(id, news):
                onEvent(.requestedSession(sessionID: id, news))
            case let .log(level, text):
                onEvent(.log(level, text))
            case .shutDown:
                closeTransport()
                if let sessionTimer { loop.cancel(sessionTimer.timer) }
                sessionTimer = nil
            }
        }
    }

    // MARK: Transport

    private func open() {
        var name = port
        if port.lowercased() == "auto" {
            let candidates = (try? autoCandidates()) ?? []
            guard !candidates.isEmpty else {
                return handle(.openFailed("no DWM3001C found (USB 1915:520F); is the board plugged in by its J20 USB port?", absent: true))
            }
            // Each failed initialisation moves on to the next candidate (the CLI firmware shares the USB id).
            name = candidates[autoIndex % candidates.count].path
            autoIndex += 1
        }
        // A TCP connect (name resolution, a host that does not answer) can take up to the connect
        // timeout: it runs on a helper thread, which hands the transport back to the loop. Serial
        // ports and terminals open at once.
        let target = name
        let options = self.options
        guard target.lowercased().hasPrefix("tcp://") else {
            return opened(target, Result { () throws(TransportError) in try openTransport(port: target, options: options) })
        }
        let remote = loop.remote
        let link = WeakLink(self)
        DetachedThread.start(name: "device open") {
            let result = Result { () throws(TransportError) in try openTransport(port: target, options: options) }
            remote.post {
                if let service = link.service {
                    service.opened(target, result)
                } else if case let .success(transport) = result {
                    transport.close()
                }
            }
        }
    }

    private func opened(_ name: String, _ result: Result<any ByteTransport, TransportError>) {
        switch result {
        case let .success(transport) where running:
            self.transport = transport
            transportName = name
            intake.restart()
            watch = loop.watch(transport.fileDescriptor, events: Int16(POLLIN)) { [unowned self] revents in readable(revents) }
            handle(.opened(port: name))
        case let .success(transport):
            transport.close()   // stopped while it was opening
        case let .failure(error) where running:
            // Nothing there: no such port, or nothing listening at the address.
            let absent: Bool = switch error {
            case .notFound, .unreachable: true
            default: false
            }
            handle(.openFailed(error.description, absent: absent))
        case .failure:
            break
        }
    }

    private func closeTransport() {
        if let watch { loop.unwatch(watch) }
        watch = nil
        transport?.close()
        transport = nil
    }

    private func disconnect(_ reason: String) {
        closeTransport()
        intake.restart()
        handle(.disconnected(reason))
    }

    /// The device descriptor is readable (or hung up): read what is there, once. Returns whether
    /// any byte came.
    @discardableResult
    private func readable(_ revents: Int16) -> Bool {
        guard let transport else { return false }
        let result = readBuffer.withUnsafeMutableBytes { buffer in
            Result { () throws(TransportError) in try transport.readAvailable(into: buffer, revents: revents) }
        }
        let count: Int
        switch result {
        case let .success(read): count = read
        case let .failure(error):
            disconnect(error.description)
            return false
        }
        guard count > 0 else { return false }
        lastByteAt = loop.now
        // Collected first, handled after: handling one may restart the intake (a disconnect),
        // which must not happen while it is still reading. The list is reused, not reallocated.
        intake.read(readBuffer[0..<count], receivedAt: Clocks.wallMicroseconds(), now: loop.now, into: &pendingItems)
        reportPending()
        // The firmware drops an incomplete packet after 100 ms; so do we.
        if let partialPacketTimer { loop.cancel(partialPacketTimer) }
        partialPacketTimer = nil
        if intake.hasPartialPacket {
            partialPacketTimer = loop.schedule(at: lastByteAt + 0.1) { [unowned self] in
                partialPacketTimer = nil
                // The rest may be waiting unread: a full terminal buffer hands out 4 KiB a read,
                // and the loop may itself have been busy or stopped. Only a silent line is a gap.
                if readable(Int16(POLLIN)) { return }
                intake.flushPartialPacket(receivedAt: Clocks.wallMicroseconds(), now: loop.now, into: &pendingItems)
                reportPending()
                armSessionTimer()
            }
        }
        armSessionTimer()
        return true
    }

    /// Hands each message the intake read to the session, which answers the device, and reports
    /// the rounds that count (the session's news first: the round that confirms SESSION_START
    /// comes after `ranging`). A round during a bring-up, a wind-down or an error is a frame:
    /// recorded, not published.
    private func reportPending() {
        var index = 0
        while index < pendingItems.count {
            let item = pendingItems[index]
            index += 1
            switch item {
            case let .report(report):
                onEvent(report)
            case let .message(message, raw):
                let wall = Clocks.wallMicroseconds()
                let monotonic = Clocks.monotonic()
                let actions = session.handle(.received(message), now: loop.now)
                perform(actions)
                let rounds = actions.lazy.compactMap { action -> DeviceIntake.Reading? in
                    if case let .measurements(info) = action { .rounds(info) } else { nil }
                }
                DeviceIntake.reports(of: raw, rounds, receivedAt: wall, monotonic: monotonic) { onEvent($0) }
            }
        }
        pendingItems.removeAll(keepingCapacity: true)
    }
}

/// The link as a helper thread's result finds it: weak, so a link released meanwhile is not kept
/// alive; read only on the loop's thread, where the result is delivered.
private final class WeakLink: @unchecked Sendable {
    weak var service: DeviceLinkService?
    init(_ service: DeviceLinkService) { self.service = service }
}
