#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CMosquitto
import EventLoop
import FoundationEssentials

/// An MQTT 3.1.1/5 client over libmosquitto 2.0.x, driven from the caller's event loop, for an
/// agent that must keep publishing through broker outages without growing without bound.
///
/// Design:
/// * **On the loop.** The client is owned by the thread that runs its `EventLoop`; the broker
///   socket is one of the loop's descriptors and libmosquitto's `mosquitto_loop_read`,
///   `_write` and `_misc` are called from there. libmosquitto only queues a packet (threaded
///   mode); what one wake-up of the loop publishes leaves together, under TCP_CORK or MSG_MORE,
///   by the flush just before the loop waits again. So a UWB notification's ranges, feedback and
///   events cost one flush, and no thread is woken to send them. QoS 0 packets on a plain TCP
///   connection the client encodes and writes itself, in one `send` (`LiveWrites`); there a
///   library packet is written as soon as it is queued, so that the live packets after it stay
///   the client's (`writeLibraryPacketNow`).
/// * **Blocking work off the loop.** `mosquitto_connect` resolves the host name and connects TCP
///   synchronously, which may take seconds; it runs on a short-lived helper thread whose only
///   output is its result, posted back to the loop. The TLS handshake and CONNECT/CONNACK then
///   happen on the loop (libmosquitto makes the socket non-blocking after the TCP connect).
/// * **Never gives up.** Every failed or lost connection — refused, DNS, TLS, credentials — is
///   reported once as `.disconnected` and retried with the back-off of cli-and-config.md
///   (min, 2·min, 4·min … max), from the start again after a CONNACK.
/// * **Events** go to `onEvent` on the loop's thread, outside libmosquitto's callbacks, so the
///   handler may publish or subscribe.
///
/// Lifecycle: `init` validates and configures (will, credentials, TLS, protocol, limits), `start`
/// connects, `disconnect` flushes and ends. A disconnected client cannot be restarted.
public final class MQTTClient {
    /// As given, but for the protocol version: a broker that refuses MQTT 5 moves it to 3.1.1
    /// for the connection's lifetime (see `fallBackTo311`).
    public private(set) var configuration: MQTTConfiguration

    private let loop: EventLoop
    private let onEvent: (MQTTEvent) -> Void
    private var reasons: MosquittoReasons
    private let box: MosquittoCallbackBox
    /// The callbacks' reports being handled: storage traded with the box's at each take.
    private var reports: [MosquittoRawEvent] = []
    private var mosq: OpaquePointer?

    private enum Phase {
        /// Configured, `start` not called yet.
        case configured
        /// Waiting for the next attempt (back-off).
        case waiting
        /// A helper thread is in `mosquitto_connect`: the handle is not touched except to publish.
        case connecting
        /// The socket is one of the loop's descriptors (TLS, CONNACK, then the session).
        case serving(socket: Int32, watch: EventLoop.Watch)
        case closed
    }

    private var phase = Phase.configured
    /// Set by `disconnect()` before DISCONNECT is sent, so the resulting callback reads as `.requested`.
    private var stopping = false
    /// True between a CONNACK that accepted the connection and the next disconnect.
    public private(set) var isConnected = false
    /// QoS ≥ 1 message ids accepted by `publish` and not yet acknowledged, with their topics (a
    /// refusal names the topic).
    private var outstanding: [Int32: String] = [:]
    /// Since when QoS 1 messages have waited without any acknowledgement (monotonic seconds), nil
    /// while none wait: the keepalive check ends a connection on which they stopped coming.
    private var acknowledgementsAwaitedSince: Double?
    /// QoS 0 packets written by the client itself (plain TCP only), ahead of libmosquitto's queue.
    private var liveWrites = LiveWrites()
    /// The topics already found plain: the check of each message's topic.
    private var plainTopics = PlainTopics()
    /// Whether live packets were written by the client since the last flush: then libmosquitto
    /// writes its packets at once (see `writeLibraryPacketNow`).
    private var liveSinceFlush = false
    /// Whether a library packet written at once, ahead of the wake-up's live packets, corked the
    /// socket: the flush lifts the cork.
    private var corkedSinceFlush = false
    /// libmosquitto's code and the errno of a write it made from `publish` that failed, for the
    /// next flush to end the connection with.
    private var failedLibraryWrite: (Int32, Int32)?
    /// Remembered subscriptions, re-sent after every CONNACK.
    private var subscriptions: [(filter: String, qos: MQTTQoS, retainAsPublished: Bool)] = []
    /// SUBSCRIBE message id → filter, to name the filter in `.subscribed`.
    private var pendingSubscriptions: [Int32: String] = [:]
    /// A refused CONNACK, reported with the disconnect that follows it.
    private var refusal: MQTTError?
    /// libmosquitto's last warning/error line of this attempt, and its first OpenSSL line (the
    /// root cause of a TLS failure; later lines are consequences).
    private var lastLogLine: String?
    private var openSSLLine: String?
    /// Whether libmosquitto itself reported the end of the current attempt, and whether the
    /// broker accepted it (which restarts the back-off).
    private var attemptReportedDisconnect = false
    private var attemptAccepted = false
    /// After the first attempt the host is known to libmosquitto: later ones use `mosquitto_reconnect`.
    private var hostSet = false
    private var failures = 0
    private var keepaliveTimer: EventLoop.Timer?
    /// A connect thread outlived `disconnect`: the handle and the box stay allocated for it.
    private var handleAbandoned = false
    private var retryTimer: EventLoop.Timer?
    /// The broker refused MQTT 5: the handle is made anew for MQTT 3.1.1 before the next attempt
    /// (a session kept across connections has no expiry on 3.1.1; see `fallBackTo311`).
    private var remakeFor311 = false

    /// Validates `configuration` and prepares a libmosquitto client for `loop`; nothing touches
    /// the network until `start()`. `onEvent` is called on the loop's thread.
    public init(configuration: MQTTConfiguration, loop: EventLoop, onEvent: @escaping (MQTTEvent) -> Void) throws(MQTTError) {
        try configuration.validate()
        _ = MosquittoLibrary.initialized
        self.configuration = configuration
        self.loop = loop
        self.onEvent = onEvent
        self.reasons = MosquittoReasons(configuration: configuration)
        let box = MosquittoCallbackBox(payloadLimit: configuration.maximumIncomingPacketBytes ?? Int.max)
        self.box = box
        let userdata = Unmanaged.passRetained(box).toOpaque()
        guard let mosq = mosquitto_new(configuration.clientID, !configuration.keepsSession, userdata) else {
            Unmanaged<MosquittoCallbackBox>.fromOpaque(userdata).release()
            throw .library(operation: "mosquitto_new", code: MosquittoCode.errno, message: String(cString: strerror(errno)))
        }
        do {
            try Self.configure(mosq, configuration, reasons)
        } catch {
            mosquitto_destroy(mosq)
            Unmanaged<MosquittoCallbackBox>.fromOpaque(userdata).release()
            throw error
        }
        // Threaded mode: a publish queues its packet instead of writing it at once, so that the
        // loop writes what one wake-up produced together (and libmosquitto's mutexes guard the
        // queues a blocking connect on the helper thread also touches).
        mosquitto_threaded_set(mosq, true)
        self.mosq = mosq
        loop.beforeWait { [weak self] in self?.flush() }
    }

    deinit {
        // Its timers hold it unowned: none may fire after it is gone.
        if let keepaliveTimer { loop.cancel(keepaliveTimer) }
        if let retryTimer { loop.cancel(retryTimer) }
        // A client dropped without `disconnect()`: a best-effort DISCONNECT (no will), then free
        // the handle, unless a helper thread is still connecting with it (it is then left to it).
        if case let .serving(_, watch) = phase {
            loop.unwatch(watch)
            if let mosq {
                mosquitto_disconnect(mosq)
                _ = mosquitto_loop_write(mosq, 1)
            }
        }
        if case .connecting = phase { return }
        destroyHandle()
    }

    /// Frees libmosquitto's client and then the callback box, once. Not while a connect thread
    /// may still use them (`handleAbandoned`): they are then left to it.
    private func destroyHandle() {
        guard let mosq, !handleAbandoned else { return }
        mosquitto_destroy(mosq)
        self.mosq = nil
        Unmanaged.passUnretained(box).release()
    }

    /// QoS ≥ 1 messages accepted by `publish` and not yet acknowledged by the broker.
    public var outstandingMessageCount: Int { outstanding.count }

    /// Whether the connection speaks MQTT 5 (properties are sent and read).
    public var speaksMQTT5: Bool { configuration.protocolVersion == .v5 }

    // MARK: - Connecting

    /// Connects, and keeps connecting after every failure with back-off until `disconnect()`.
    /// Returns at once; `.connected` or `.disconnected(.failed(...))` follow on `onEvent`.
    ///
    /// Throws only for misuse: called twice, or after `disconnect()`. Everything else, including
    /// an unusable certificate file or a failed TLS handshake, is a failed attempt reported as an
    /// event and retried (cli-and-config.md: `run` never gives up on the broker).
    public func start() throws(MQTTError) {
        switch phase {
        case .configured: attempt()
        case .closed: throw .closed
        default: throw .alreadyStarted
        }
    }

    /// Ends the session cleanly: runs the loop up to `timeout` for outstanding QoS ≥ 1 messages
    /// to be acknowledged (reconnecting meanwhile if needed), sends DISCONNECT (so the broker does
    /// not publish the will) and frees libmosquitto's client. Afterwards every call throws `.closed`.
    ///
    /// - Returns: how many QoS ≥ 1 messages were still unacknowledged (0 = all delivered). The
    ///   caller's spool should keep those.
    @discardableResult
    public func disconnect(timeout: Duration = .seconds(5)) -> Int {
        if case .closed = phase { return outstanding.count }
        let deadline = Clocks.monotonic() + timeout.seconds
        if case .configured = phase {} else {
            loop.run(until: { [unowned self] in outstanding.isEmpty }, deadline: deadline)
        }
        stopping = true
        if let retryTimer { loop.cancel(retryTimer) }
        switch phase {
        case .serving:
            // DISCONNECT is written by the next flush; libmosquitto closes the socket after it and
            // reports the end, which `endConnection` turns into `.disconnected(.requested)`. A
            // session kept for the will delay ends with it: nobody is coming back to it.
            if let mosq {
                if configuration.keepsSession {
                    var properties: OpaquePointer?
                    _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), 0)
                    mosquitto_disconnect_v5(mosq, 0, properties)
                    mosquitto_property_free_all(&properties)
                } else {
                    mosquitto_disconnect(mosq)
                }
            }
            loop.run(until: { [unowned self] in if case .serving = phase { false } else { true } },
                     deadline: max(deadline, Clocks.monotonic() + 1))
            if case let .serving(_, watch) = phase { loop.unwatch(watch) }
        case .connecting:
            // A connect to a host that does not answer can take long; it is given up to 10 s.
            loop.run(until: { [unowned self] in if case .connecting = phase { false } else { true } },
                     deadline: Clocks.monotonic() + 10)
        default:
            break
        }
        if case .connecting = phase {
            handleAbandoned = true   // the connect thread still uses the handle: leave it (and the box) to it
            phase = .closed
            return outstanding.count
        }
        if let keepaliveTimer { loop.cancel(keepaliveTimer) }
        destroyHandle()
        phase = .closed
        isConnected = false
        return outstanding.count
    }

    /// Closes the TCP connection abruptly, without DISCONNECT, as a network failure would: the
    /// broker publishes the will, and the client reconnects with back-off.
    ///
    /// For tests (to prove the will is set) and for a watchdog that suspects a half-open connection.
    public func abortConnection() {
        // shutdown, not close: the descriptor stays libmosquitto's, its next read sees EOF.
        if case let .serving(socket, _) = phase { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// One connection attempt: the blocking part on a helper thread, the rest on the loop.
    private func attempt() {
        guard !stopping else { return }
        if remakeFor311 { remakeHandleFor311() }
        guard let mosq else { return }
        phase = .connecting
        MosquittoCallbacks.setLogging(true, on: mosq)
        attemptReportedDisconnect = false
        attemptAccepted = false
        let handle = MosquittoHandle(mosq: mosq)
        let weakSelf = WeakClient(self)
        let remote = loop.remote
        let reconnect = hostSet
        let broker = configuration.broker
        let keepalive = Int32(configuration.keepaliveSeconds)
        let properties = ConnectProperties(configuration)
        DetachedThread.start(name: "mqtt connect") {
            // libmosquitto keeps a copy of the CONNECT properties for its reconnects.
            let rc = reconnect
                ? mosquitto_reconnect(handle.mosq)
                : mosquitto_connect_bind_v5(handle.mosq, broker.host, Int32(broker.port), keepalive, nil, properties.list)
            let code = errno
            properties.free()
            remote.post { weakSelf.client?.attemptFinished(rc, errno: code) }
        }
    }

    private func attemptFinished(_ rc: Int32, errno threadErrno: Int32) {
        guard case .connecting = phase, let mosq else { return }
        if rc != MosquittoCode.invalid { hostSet = true }
        let socket = mosquitto_socket(mosq)
        guard rc == MosquittoCode.success, socket >= 0, !stopping else {
            phase = .waiting
            takeCallbacks()
            endAttempt(code: rc == MosquittoCode.success ? MosquittoCode.noConnection : rc, errno: threadErrno)
            return
        }
        let watch = loop.watch(socket, events: Int16(POLLIN)) { [unowned self] revents in socketReady(revents) }
        phase = .serving(socket: socket, watch: watch)
        scheduleKeepalive()
        takeCallbacks()
    }

    /// The socket is readable (or failed): one read per wake-up, as `mosquitto_loop` does; what is
    /// left stays readable for the next poll, so a flood stays in the kernel's buffers.
    private func socketReady(_ revents: Int16) {
        guard case let .serving(socket, _) = phase, let mosq else { return }
        if revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 {
            let rc = mosquitto_loop_read(mosq, 1)
            takeCallbacks()
            if rc != MosquittoCode.success || mosquitto_socket(mosq) != socket {
                return endConnection(rc, errno: errno)
            }
        }
        if revents & Int16(POLLOUT) != 0 { flush() }
    }

    /// Writes everything queued: the client's own QoS 0 packets in one `send`, then libmosquitto's
    /// packets (one `send` each) under one TCP cork, so that they leave as one segment where it
    /// fits. Called before every wait of the loop; waits for POLLOUT only while the socket is full.
    /// libmosquitto's packets wait while the client's are not all written: they came after them.
    private func flush() {
        guard case let .serving(socket, watch) = phase, let mosq else { return }
        liveSinceFlush = false
        // A write of libmosquitto's outside the flush (behind live bytes, from `publish`) failed:
        // the connection ends here, where ending it is safe.
        if let (rc, code) = failedLibraryWrite {
            failedLibraryWrite = nil
            return endConnection(rc == MosquittoCode.success ? MosquittoCode.connectionLost : rc, errno: code)
        }
        let libraryWrites = mosquitto_want_write(mosq)
        let corked = corkedSinceFlush
        corkedSinceFlush = false
        guard libraryWrites || !liveWrites.isEmpty else {
            if corked { Self.setCork(socket, false) }
            return
        }
        if libraryWrites && !corked { Self.setCork(socket, true) }
        if let code = liveWrites.write(to: socket) {
            return endConnection(MosquittoCode.errno, errno: code)
        }
        if libraryWrites {
            var rc = MosquittoCode.success
            if liveWrites.isEmpty { rc = mosquitto_loop_write(mosq, 1) }
            let code = errno
            let same = mosquitto_socket(mosq) == socket
            if same { Self.setCork(socket, false) }
            takeCallbacks()
            if rc != MosquittoCode.success || !same { return endConnection(rc, errno: code) }
        } else if corked {
            Self.setCork(socket, false)
        }
        let more = !liveWrites.isEmpty || mosquitto_want_write(mosq)
        loop.setEvents(watch, Int16(POLLIN) | (more ? Int16(POLLOUT) : 0))
    }

    /// Keepalive: PINGREQ when due, and a connection whose PINGRESP never came is closed.
    /// libmosquitto measures the interval itself; checking four times per keepalive is enough.
    private func scheduleKeepalive() {
        if let keepaliveTimer { loop.cancel(keepaliveTimer) }
        let interval = configuration.keepaliveSeconds > 0 ? Double(configuration.keepaliveSeconds) / 4 : 5
        keepaliveTimer = loop.schedule(after: interval) { [unowned self] in
            keepaliveTimer = nil
            guard case let .serving(socket, _) = phase, let mosq else { return }
            if let problem = overdueAcknowledgements() {
                // The broker answers PINGREQs but acknowledges nothing: a new connection makes
                // libmosquitto send the waiting messages again.
                refusal = .connectionLost(reason: problem)
                shutdown(socket, Int32(SHUT_RDWR))
            }
            let rc = mosquitto_loop_misc(mosq)
            takeCallbacks()
            if rc != MosquittoCode.success || mosquitto_socket(mosq) != socket { return endConnection(rc, errno: errno) }
            scheduleKeepalive()
        }
    }

    /// Why the connection is to be ended, when QoS 1 messages have waited a whole keepalive
    /// interval (at least 5 s) without a single acknowledgement while the connection stood.
    /// Measured with Debian's mosquitto 2.0.11: once it drops messages for a client it can stop
    /// sending that client's PUBACKs altogether, and the QoS 1 window then stays full for good.
    private func overdueAcknowledgements() -> String? {
        guard isConnected, !outstanding.isEmpty, let since = acknowledgementsAwaitedSince else { return nil }
        let limit = Double(max(configuration.keepaliveSeconds, 5))
        let waited = Clocks.monotonic() - since
        guard waited >= limit else { return nil }
        return "the broker acknowledged none of \(outstanding.count) messages in \(Int(waited)) s; connecting again"
    }

    /// The connection ended (lost, refused, or closed after our DISCONNECT).
    private func endConnection(_ rc: Int32, errno code: Int32) {
        guard case let .serving(_, watch) = phase else { return }
        liveWrites.reset()
        liveSinceFlush = false
        corkedSinceFlush = false
        failedLibraryWrite = nil
        loop.unwatch(watch)
        if let keepaliveTimer { loop.cancel(keepaliveTimer) }
        keepaliveTimer = nil
        phase = .waiting
        endAttempt(code: rc == MosquittoCode.success ? MosquittoCode.noConnection : rc, errno: code)
    }

    /// Reports the end of an attempt (unless libmosquitto did) and schedules the next one.
    private func endAttempt(code: Int32, errno threadErrno: Int32) {
        if !attemptReportedDisconnect { handle(.disconnect(code: code, errno: threadErrno)) }
        guard !stopping else { return }
        if attemptAccepted { failures = 0 }
        let delay = ReconnectBackoff.delaySeconds(attempt: failures, min: configuration.reconnectDelayMinSeconds,
                                                max: configuration.reconnectDelayMaxSeconds)
        failures += 1
        retryTimer = loop.schedule(after: Double(delay)) { [unowned self] in
            retryTimer = nil
            if case .waiting = phase { attempt() }
        }
    }

    // MARK: - Publishing and subscribing

    /// Publishes `payload` to `topic`; it is written before the loop next waits.
    ///
    /// - QoS 0 while offline throws `.notConnected` (nothing is kept). On a plain TCP connection
    ///   the client writes QoS 0 packets itself (`LiveWrites`) and throws `.backlog` while a
    ///   broker that does not read leaves a mebibyte of them unwritten.
    /// - QoS ≥ 1 is accepted while offline and sent after the reconnect (libmosquitto queues it),
    ///   until `maxQueuedMessages` are unacknowledged; then it throws `.queueFull` and the message
    ///   is NOT queued.
    /// - Returns: the message id; `.published(messageID:)` reports the acknowledgement of QoS ≥ 1.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                        properties: PublishProperties? = nil) throws(MQTTError) -> Int {
        try publish(topic: topic, payload: payload[...], qos: qos, retain: retain, properties: properties)
    }

    /// The same, for a payload that is part of a larger array.
    @discardableResult
    public func publish(topic: String, payload: ArraySlice<UInt8>, qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                        properties: PublishProperties? = nil) throws(MQTTError) -> Int {
        try payload.withUnsafeBytes { bytes in
            Result { () throws(MQTTError) in try publish(topic: topic, payload: bytes, qos: qos, retain: retain, properties: properties) }
        }.get()
    }

    /// The same, for bytes lent for the time of the call (the agent's outbox). `properties` go
    /// with it on MQTT 5 and are left out on 3.1.1.
    @discardableResult
    public func publish(topic: String, payload: UnsafeRawBufferPointer, qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                        properties: PublishProperties? = nil) throws(MQTTError) -> Int {
        let plain = plainTopics.contains(topic)
        if !plain { try MQTTTopic.validateForPublish(topic) }
        guard payload.count <= 268_435_455 else { throw .payloadTooLarge(bytes: payload.count) }
        guard let mosq, !stopping else { throw .closed }
        if qos == .atMostOnce && !isConnected { throw .notConnected }
        if qos == .atMostOnce, !retain, case .serving = phase, !configuration.broker.useTLS, !mosquitto_want_write(mosq) {
            guard liveWrites.pendingBytes < LiveWrites.limit else { throw .backlog(bytes: liveWrites.pendingBytes) }
            if !plain { try MQTTTopic.validateCharacters(topic) }
            liveWrites.append(topic: topic, payload: payload, retain: retain, version: configuration.protocolVersion,
                              properties: properties?.encoded)
            liveSinceFlush = true
            return 0
        }
        let limit = configuration.maxQueuedMessages
        if qos != .atMostOnce && outstanding.count >= limit { throw .queueFull(limit: limit) }
        let amongLivePackets = liveSinceFlush && !mosquitto_want_write(mosq)
        var messageID: Int32 = 0
        if qos != .atMostOnce { box.acknowledgeable.add(1, ordering: .relaxed) }
        // `withCString` lends a native string's own NUL-terminated storage; passing `topic`
        // directly as the `char *` argument would copy it into a new array per message.
        let list = speaksMQTT5 ? properties?.list : nil
        let rc = topic.withCString { cTopic in
            mosquitto_publish_v5(mosq, &messageID, cTopic, Int32(payload.count), payload.baseAddress, qos.rawValue, retain, list)
        }
        let queued = rc == MosquittoCode.success || (rc == MosquittoCode.noConnection && qos != .atMostOnce)
        if qos != .atMostOnce && !queued { box.acknowledgeable.subtract(1, ordering: .relaxed) }
        switch rc {
        case MosquittoCode.success:
            break
        case MosquittoCode.noConnection where qos != .atMostOnce:
            // Measured (design notes §2.7): NO_CONN for QoS ≥ 1 still queues the message in
            // libmosquitto and sends it after the reconnect; retrying would duplicate it.
            break
        case MosquittoCode.noConnection:
            throw .notConnected
        case MosquittoCode.payloadSize, MosquittoCode.oversizePacket:
            throw .payloadTooLarge(bytes: payload.count)
        case MosquittoCode.malformedUTF8:
            throw .invalidTopic(topic: topic, reason: "it is not valid UTF-8")
        default:
            throw reasons.call("publish to \(topic)", code: rc)
        }
        if qos != .atMostOnce {
            if outstanding.isEmpty || !isConnected { acknowledgementsAwaitedSince = Clocks.monotonic() }
            outstanding[messageID] = topic
        }
        if rc == MosquittoCode.success, !configuration.broker.useTLS { writeLibraryPacketNow(corking: !amongLivePackets) }
        return Int(messageID)
    }

    /// libmosquitto queued a packet (QoS 1, a retained message) on a plain TCP connection: it is
    /// written at once, so that live messages published after it are the client's to write
    /// again, in the order published; otherwise each would go through libmosquitto (a packet
    /// allocated, a write of its own and one to its socket pair) until the flush. Among live
    /// packets of the same wake-up, those published before it go first, with MSG_MORE since the
    /// packet follows at once. Ahead of them (`corking`: a round's first event, the journal's
    /// batches), the socket is corked first, so that what the wake-up writes after it still
    /// leaves together; the flush lifts the cork. Where the socket takes less, everything waits
    /// for the flush, which writes the client's bytes first. A write that fails here is left to
    /// the flush, which ends the connection.
    private func writeLibraryPacketNow(corking: Bool) {
        guard case let .serving(socket, _) = phase, let mosq,
              liveWrites.write(to: socket, flags: Int32(MSG_MORE)) == nil, liveWrites.isEmpty else { return }
        if corking && !corkedSinceFlush {
            Self.setCork(socket, true)
            corkedSinceFlush = true
        }
        let rc = mosquitto_loop_write(mosq, 1)
        if rc != MosquittoCode.success || mosquitto_socket(mosq) != socket { failedLibraryWrite = (rc, errno) }
    }

    /// Publishes UTF-8 `text`.
    @discardableResult
    public func publish(topic: String, payload text: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false,
                        properties: PublishProperties? = nil) throws(MQTTError) -> Int {
        try publish(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain, properties: properties)
    }

    /// Subscribes to `filter` now if connected, and again after every reconnect (the session is
    /// clean, so the broker forgets subscriptions when the connection drops). `.subscribed`
    /// reports each SUBACK. Subscribing again to the same filter replaces its QoS.
    ///
    /// `retainAsPublished` (MQTT 5's subscription option): a retained message published while
    /// the client is subscribed arrives with its retain flag, as it does to a new subscriber.
    /// Without it, and always on MQTT 3.1.1, the broker clears the flag on live delivery, so that
    /// an empty retained message that clears a topic looks like an ordinary empty message.
    public func subscribe(topic filter: String, qos: MQTTQoS = .atLeastOnce, retainAsPublished: Bool = false) throws(MQTTError) {
        try MQTTTopic.validateFilter(filter)
        guard mosq != nil, !stopping else { throw .closed }
        subscriptions.removeAll { $0.filter == filter }
        subscriptions.append((filter, qos, retainAsPublished))
        if isConnected { sendSubscribe(filter, qos, retainAsPublished: retainAsPublished) }
    }

    /// Forgets `filter` and unsubscribes from it if connected.
    public func unsubscribe(topic filter: String) throws(MQTTError) {
        try MQTTTopic.validateFilter(filter)
        guard let mosq, !stopping else { throw .closed }
        subscriptions.removeAll { $0.filter == filter }
        if isConnected { _ = mosquitto_unsubscribe(mosq, nil, filter) }
    }

    // MARK: - Internals

    /// Options that must be set before connecting (mosquitto.h): callbacks, protocol, limits,
    /// back-off, will, credentials, TLS.
    private static func configure(_ mosq: OpaquePointer, _ configuration: MQTTConfiguration,
                                  _ reasons: MosquittoReasons) throws(MQTTError) {
        func check(_ rc: Int32, _ operation: String) throws(MQTTError) {
            if rc != MosquittoCode.success { throw reasons.call(operation, code: rc) }
        }
        MosquittoCallbacks.install(on: mosq)
        let version = configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        try check(mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, Int32(version)), "set protocol version")
        try check(mosquitto_int_option(mosq, MOSQ_OPT_SEND_MAXIMUM, Int32(configuration.maxInflightMessages)),
                  "set maximum in-flight messages")
        // Nagle's algorithm with the broker's delayed ACK held small messages back up to ~40 ms
        // (make bench: p99 latency 43 ms); a proximity feed wants each message out at once. The
        // TCP_CORK around each flush still joins what one wake-up of the loop writes.
        try check(mosquitto_int_option(mosq, MOSQ_OPT_TCP_NODELAY, 1), "set TCP_NODELAY")
        if let will = configuration.will {
            let rc: Int32
            if configuration.protocolVersion == .v5 {
                var properties = try PublishProperties.list(will.properties, willDelaySeconds: configuration.willDelaySeconds)
                rc = will.payload.withUnsafeBytes { bytes in
                    mosquitto_will_set_v5(mosq, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos.rawValue, will.retain, properties)
                }
                // The list is libmosquitto's on success only.
                if rc != MosquittoCode.success { mosquitto_property_free_all(&properties) }
            } else {
                rc = will.payload.withUnsafeBytes { bytes in
                    mosquitto_will_set(mosq, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos.rawValue, will.retain)
                }
            }
            switch rc {
            case MosquittoCode.success: break
            case MosquittoCode.payloadSize: throw .payloadTooLarge(bytes: will.payload.count)
            default: throw .invalidTopic(topic: will.topic, reason: "libmosquitto refused it as the will topic")
            }
        }
        if let username = configuration.username {
            // The password goes to libmosquitto only; it never appears in an error from here.
            let rc = mosquitto_username_pw_set(mosq, username, configuration.password)
            if rc != MosquittoCode.success { throw .invalidConfiguration("libmosquitto refused the username or password") }
        }
        if configuration.broker.useTLS {
            if configuration.caFile == nil {
                try check(mosquitto_int_option(mosq, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "use the system CA store")
            }
            if configuration.caFile != nil || configuration.certFile != nil {
                let rc = mosquitto_tls_set(mosq, configuration.caFile,
                                           configuration.caFile == nil ? "/etc/ssl/certs" : nil,
                                           configuration.certFile, configuration.keyFile, nil)
                if rc != MosquittoCode.success {
                    throw reasons.tlsFailure(detail: "libmosquitto refused the certificate files (error \(rc))")
                }
            }
            // Verify the broker's certificate and host name; never insecure.
            try check(mosquitto_tls_opts_set(mosq, 1, nil, nil), "set TLS options")
            try check(mosquitto_tls_insecure_set(mosq, false), "enable TLS host name checks")
        }
    }

    /// Sends one SUBSCRIBE. A failure here (e.g. the connection just dropped) is harmless: the
    /// next CONNACK subscribes again.
    private func sendSubscribe(_ filter: String, _ qos: MQTTQoS, retainAsPublished: Bool) {
        guard let mosq else { return }
        var messageID: Int32 = 0
        let options = retainAsPublished && configuration.protocolVersion == .v5 ? Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue) : 0
        if mosquitto_subscribe_v5(mosq, &messageID, filter, qos.rawValue, options, nil) == MosquittoCode.success {
            pendingSubscriptions[messageID] = filter
        }
    }

    /// Handles what libmosquitto's callbacks reported during the last call into it.
    private func takeCallbacks() {
        box.take(into: &reports)
        for event in reports { handle(event) }
        // Not kept until the next take: a message's payload can be large.
        reports.removeAll(keepingCapacity: true)
    }

    /// Bookkeeping for one callback report, then the public event.
    private func handle(_ event: MosquittoRawEvent) {
        switch event {
        case let .connack(code, flags):
            guard code == 0 else {
                refusal = reasons.connackRefusal(code: code)
                if configuration.protocolVersion == .v5, code == MosquittoCode.unsupportedProtocolVersion { fallBackTo311() }
                return
            }
            isConnected = true
            attemptAccepted = true
            // Messages kept through the outage are sent again now: their wait starts here.
            if !outstanding.isEmpty { acknowledgementsAwaitedSince = Clocks.monotonic() }
            if let mosq { MosquittoCallbacks.setLogging(false, on: mosq) }
            refusal = nil
            lastLogLine = nil
            openSSLLine = nil
            for subscription in subscriptions {
                sendSubscribe(subscription.filter, subscription.qos, retainAsPublished: subscription.retainAsPublished)
            }
            onEvent(.connected(sessionPresent: flags & 1 != 0))

        case let .disconnect(code, threadErrno):
            attemptReportedDisconnect = true
            isConnected = false
            // Half a packet must not start the next connection.
            liveWrites.reset()
            let reason: MQTTDisconnectReason = stopping && code == MosquittoCode.success
                ? .requested
                : .failed(refusal ?? reasons.disconnect(code: code, errno: threadErrno, lastLogLine: openSSLLine ?? lastLogLine))
            refusal = nil
            lastLogLine = nil
            openSSLLine = nil
            onEvent(.disconnected(reason))

        case let .publishAcknowledged(messageID, reasonCode):
            // QoS 0 publishes are reported too while QoS 1 ones are pending; they were never counted.
            guard let topic = outstanding.removeValue(forKey: messageID) else { return }
            acknowledgementsAwaitedSince = outstanding.isEmpty ? nil : Clocks.monotonic()
            box.acknowledgeable.subtract(1, ordering: .relaxed)
            if reasonCode >= 0x80 {
                onEvent(.publishFailed(messageID: Int(messageID), topic: topic, reasonCode: Int(reasonCode),
                                       reason: String(cString: mosquitto_reason_string(reasonCode))))
            } else {
                onEvent(.published(messageID: Int(messageID)))
            }

        case let .message(message):
            onEvent(.message(message))

        case let .subscribeAcknowledged(messageID, granted):
            guard let filter = pendingSubscriptions.removeValue(forKey: messageID) else { return }
            let qos = granted.first.flatMap { MQTTQoS(rawValue: $0) }   // 0x80 = refused → nil
            onEvent(.subscribed(topic: filter, grantedQoS: qos))

        case let .log(line):
            // Kept for the next disconnect's reason: OpenSSL's line explains a TLS failure.
            lastLogLine = line
            if line.hasPrefix("OpenSSL Error") && openSSLLine == nil { openSSLLine = line }
        }
    }

    /// A broker of MQTT 3.1.1 only answers an MQTT 5 CONNECT with "unacceptable protocol
    /// version" (libmosquitto reports it as MQTT 5's 0x84): the next attempt, after the usual
    /// back-off, speaks 3.1.1, and so does every one after it. The refusal is the reason of this
    /// attempt's `.disconnected`, said once like any other.
    private func fallBackTo311() {
        let keptSession = configuration.keepsSession
        guard let mosq, mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311)) == MosquittoCode.success else { return }
        configuration.protocolVersion = .v311
        reasons = MosquittoReasons(configuration: configuration)
        // A session kept on MQTT 3.1.1 never expires: the broker would queue requests for an agent
        // that is gone, to be acted on whenever it comes back. The handle was made for one; it is
        // made anew (clean) before the next attempt, when no socket is open.
        if keptSession { remakeFor311 = true }
    }

    /// Makes the handle anew for MQTT 3.1.1 with a clean session: everything `init` set, again.
    /// Only between attempts, and only before any connection was accepted, so that nothing is
    /// queued in it yet.
    private func remakeHandleFor311() {
        remakeFor311 = false
        guard let mosq else { return }
        let userdata = Unmanaged.passUnretained(box).toOpaque()
        guard mosquitto_reinitialise(mosq, configuration.clientID, true, userdata) == MosquittoCode.success else { return }
        do {
            try Self.configure(mosq, configuration, reasons)
        } catch {
            refusal = error
        }
        mosquitto_threaded_set(mosq, true)
        hostSet = false
    }

    /// TCP_CORK on or off. Turning it off sends what it held at once.
    private static func setCork(_ socket: Int32, _ on: Bool) {
        var value: Int32 = on ? 1 : 0
        _ = setsockopt(socket, Int32(IPPROTO_TCP), TCP_CORK, &value, socklen_t(MemoryLayout<Int32>.size))
    }
}

/// The `mosquitto *` handle lent to the connect thread. Safe to share: while that thread runs,
/// the loop calls only `mosquitto_publish` on it, which libmosquitto's threaded mode guards, and
/// the handle is not destroyed until the thread has reported back.
private struct MosquittoHandle: @unchecked Sendable {
    let mosq: OpaquePointer
}

/// The client as the connect thread's result finds it: weak, so a client released meanwhile is
/// not kept alive; read only on the loop's thread, where the result is delivered.
private final class WeakClient: @unchecked Sendable {
    weak var client: MQTTClient?
    init(_ client: MQTTClient) { self.client = client }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
