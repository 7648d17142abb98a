import Foundation
import Synchronization
import UCI

/// The device link at work: owns the transport and a dedicated thread that reads bytes,
/// reassembles and decodes UCI messages, and drives `DeviceSession`, writing the commands it
/// asks for. Everything it learns goes out through `onEvent`; requests come in through `send`.
///
/// The thread is the single owner of the transport, the reassembler and the session; other
/// threads only touch the inbox (a Mutex) and the stop flag (an Atomic), so the class is
/// Sendable without unchecked escapes.
public final class DeviceLinkService: Sendable {
    /// What the agent learns from the device link.
    public enum Event: Sendable {
        case stateChanged(DeviceLinkState, port: String)
        case deviceIdentified(DeviceInfo, capabilities: [ConfigTLV])
        /// A ranging round, with the wall-clock time it was received and the message it came in
        /// (for recording). It stands for its frame too: one event per notification, not two.
        case measurements(SessionInfo, receivedAt: Double, raw: RawMessage)
        case sessionStopped(ReasonCode)
        case log(LogLevel, String)
        /// Every other UCI message received, decoded or not (for recording and metrics).
        case frame(RawMessage, receivedAt: Double, valid: Bool)
    }

    /// Where the device is: a path or `tcp://…` opened as given, or `auto` for the first port
    /// that looks like a DWM3001C (USB 1915:520F), confirmed by its UCI answers.
    public let port: String
    private let options: TransportOptions
    private let onEvent: @Sendable (Event) -> Void
    private let inbox = Mutex<[DeviceSession.Event]>([])
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let initial: (RangingSessionConfiguration, DeviceSession.Timing)
    private let started = Atomic<Bool>(false)

    public init(port: String, configuration: RangingSessionConfiguration, options: TransportOptions = TransportOptions(),
                timing: DeviceSession.Timing = DeviceSession.Timing(), onEvent: @escaping @Sendable (Event) -> Void) {
        self.port = port
        self.options = options
        self.onEvent = onEvent
        initial = (configuration, timing)
    }

    /// Starts the link's thread. It keeps trying to reach the device until `stop()`.
    public func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        let thread = Thread { [self] in
            var loop = Loop(service: self, session: DeviceSession(configuration: initial.0, timing: initial.1))
            loop.run()
            finished.signal()
        }
        thread.name = "uwb2mqtt-device"
        thread.start()
    }

    /// Hands a request to the link: start/stop/reset the session, or a new configuration.
    public func send(_ event: DeviceSession.Event) {
        inbox.withLock { $0.append(event) }
    }

    /// Stops the thread and closes the device; returns when it is done (at most ~1 s).
    public func stop() {
        guard started.load(ordering: .relaxed) else { return }
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        _ = finished.wait(timeout: .now() + 5)
    }

    /// The link's thread: transport, reassembler and session live here and nowhere else.
    private struct Loop {
        let service: DeviceLinkService
        var session: DeviceSession
        var transport: (any ByteTransport)?
        var transportName = ""
        var reassembler = Reassembler()
        var lastByteAt = 0.0
        var autoIndex = 0

        init(service: DeviceLinkService, session: DeviceSession) {
            self.service = service
            self.session = session
        }

        mutating func run() {
            perform(session.handle(.tick, now: Clocks.monotonic()))
            while !service.stopping.load(ordering: .relaxed) {
                for event in service.inbox.withLock({ inbox in defer { inbox.removeAll() }; return inbox }) {
                    perform(session.handle(event, now: Clocks.monotonic()))
                }
                if let transport {
                    do {
                        // A notification ends the wait at once; the timeout only paces the
                        // idle loop (requests in the inbox, command timeouts) and, while part of
                        // a packet waits, ends when its 100 ms are up. 100 ms rather than 20:
                        // five times fewer wake-ups of an idle gateway (make bench at 100/s).
                        var wait = 100
                        if reassembler.hasPartialPacket {
                            wait = min(wait, max(1, Int(((0.1 - (Clocks.monotonic() - lastByteAt)) * 1000).rounded(.up)) + 1))
                        }
                        let bytes = try transport.read(maximum: 4096, timeout: .milliseconds(wait))
                        let now = Clocks.monotonic()
                        if !bytes.isEmpty {
                            lastByteAt = now
                            receive(bytes)
                        } else if reassembler.hasPartialPacket, now - lastByteAt > 0.1 {
                            // The firmware drops an incomplete packet after 100 ms; so do we.
                            for event in reassembler.flushPartialPacket() { report(event) }
                        }
                    } catch {
                        disconnect(error.description)
                    }
                } else {
                    // Nothing to read from: wait a little for requests or the next retry time.
                    usleep(100_000)
                }
                perform(session.handle(.tick, now: Clocks.monotonic()))
            }
            transport?.close()
            transport = nil
        }

        mutating func receive(_ bytes: [UInt8]) {
            for event in reassembler.feed(bytes) { report(event) }
        }

        mutating func report(_ event: Reassembler.Event) {
            let wall = Clocks.wall()
            switch event {
            case let .message(raw):
                do {
                    let message = try UCIMessage(decoding: raw)
                    if case let .notification(.sessionInfo(info)) = message, info.sessionHandle == session.sessionHandle {
                        service.onEvent(.measurements(info, receivedAt: wall, raw: raw))
                    } else {
                        service.onEvent(.frame(raw, receivedAt: wall, valid: true))
                    }
                    perform(session.handle(.received(message), now: Clocks.monotonic()))
                } catch {
                    service.onEvent(.frame(raw, receivedAt: wall, valid: false))
                    service.onEvent(.log(.warning, "malformed \(raw.name) from the device: \(error.description)"))
                }
            case let .discarded(discard):
                service.onEvent(.log(.warning, "\(discard)"))
            }
        }

        mutating func disconnect(_ reason: String) {
            transport?.close()
            transport = nil
            reassembler = Reassembler()
            perform(session.handle(.disconnected(reason), now: Clocks.monotonic()))
        }

        mutating func open() {
            var name = service.port
            if service.port.lowercased() == "auto" {
                let candidates = (try? autoCandidates()) ?? []
                guard !candidates.isEmpty else {
                    perform(session.handle(.openFailed("no DWM3001C found (USB 1915:520F); is the board plugged in by its J20 USB port?", absent: true),
                                           now: Clocks.monotonic()))
                    return
                }
                // Each failed initialisation moves on to the next candidate (the CLI firmware shares the USB id).
                name = candidates[autoIndex % candidates.count].path
                autoIndex += 1
            }
            do {
                transport = try openTransport(port: name, options: service.options)
                transportName = name
                reassembler = Reassembler()
                perform(session.handle(.opened(port: name), now: Clocks.monotonic()))
            } catch {
                let absent: Bool = if case .notFound = error { true } else { false }
                perform(session.handle(.openFailed(error.description, absent: absent), now: Clocks.monotonic()))
            }
        }

        mutating func perform(_ actions: [DeviceSession.Action]) {
            for action in actions {
                switch action {
                case .open:
                    open()
                case .close:
                    transport?.close()
                    transport = nil
                case let .send(command):
                    do {
                        try transport?.write(command.raw.encoded())
                    } catch {
                        disconnect(error.description)
                    }
                case let .stateChanged(state):
                    service.onEvent(.stateChanged(state, port: transportName.isEmpty ? service.port : transportName))
                case let .deviceIdentified(info, capabilities):
                    service.onEvent(.deviceIdentified(info, capabilities: capabilities))
                case .measurements:
                    break // reported with its receive time in `report`
                case let .sessionStopped(reason):
                    service.onEvent(.sessionStopped(reason))
                case let .log(level, text):
                    service.onEvent(.log(level, text))
                }
            }
        }
    }
}
