#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CMosquitto
import Synchronization

/// An MQTT 3.1.1/5 client over libmosquitto 2.0.x, for an agent that must keep publishing through
/// broker outages without growing without bound.
///
/// Design (why it is `Sendable` without `@unchecked`):
/// * The client runs its own network thread (`NetworkThread`: connect, `mosquitto_loop` with
///   coalesced writes, reconnect with back-off); libmosquitto's callbacks run there and only
///   yield copies of their arguments into an internal `AsyncStream` (`MosquittoCallbacks`).
/// * One event-pump task consumes that stream in order, does all bookkeeping (connected flag,
///   outstanding QoS 1 message ids, re-subscribing after a reconnect) and forwards `MQTTEvent`s.
/// * Every call into libmosquitto from Swift is made while holding `state` (a `Mutex`), which also
///   owns the `mosquitto *` handle, so destroy can never race a publish. The network thread never
///   takes this lock, so holding it across a libmosquitto call (or waiting for the network thread
///   to end in `disconnect`) cannot deadlock.
///
/// Lifecycle: `init` validates and configures (will, credentials, TLS, protocol, limits), `start`
/// starts the network thread, which connects; `disconnect` flushes and ends.
/// A disconnected client cannot be restarted; make a new one.
public final class MQTTClient: Sendable {
    /// Events in the order they happened. One consumer; ends after `disconnect()`.
    public let events: AsyncStream<MQTTEvent>
    public let configuration: MQTTConfiguration

    private let state: Mutex<State>
    private let box: MosquittoCallbackBox
    private let output: AsyncStream<MQTTEvent>.Continuation
    private let reasons: MosquittoReasons
    private let network: NetworkThread

    private enum Phase {
        case configured, started, closed
    }

    private struct State {
        var mosq: OpaquePointer?
        var phase = Phase.configured
        /// Set by `disconnect()` before DISCONNECT is sent, so the resulting callback reads as `.requested`.
        var stopping = false
        var connected = false
        /// QoS ≥ 1 message ids accepted by `publish` and not yet acknowledged.
        var outstanding: Set<Int32> = []
        /// Remembered subscriptions, re-sent after every CONNACK.
        var subscriptions: [(filter: String, qos: MQTTQoS)] = []
        /// SUBSCRIBE message id → filter, to name the filter in `.subscribed`.
        var pendingSubscriptions: [Int32: String] = [:]
        /// A refused CONNACK, reported with the disconnect that follows it.
        var refusal: MQTTError?
        /// libmosquitto's last warning/error line since the last CONNACK, and its first OpenSSL
        /// line (the root cause of a TLS failure; later lines are consequences).
        var lastLogLine: String?
        var openSSLLine: String?
        /// Open `batch` calls, and whether one of them queued something the network thread must
        /// be woken for when the last one ends.
        var batchDepth = 0
        var wakeDeferred = false
    }

    /// Validates `configuration` and prepares a libmosquitto client; nothing touches the network
    /// until `start()`.
    public init(configuration: MQTTConfiguration) throws(MQTTError) {
        try configuration.validate()
        _ = MosquittoLibrary.initialized
        self.configuration = configuration
        self.reasons = MosquittoReasons(configuration: configuration)

        let (raw, rawContinuation) = AsyncStream.makeStream(of: MosquittoRawEvent.self)
        let (events, output) = AsyncStream.makeStream(of: MQTTEvent.self)
        self.events = events
        self.output = output
        let box = MosquittoCallbackBox(continuation: rawContinuation)
        self.box = box

        let userdata = Unmanaged.passRetained(box).toOpaque()
        guard let mosq = mosquitto_new(configuration.clientID, true, userdata) else {
            Unmanaged<MosquittoCallbackBox>.fromOpaque(userdata).release()
            rawContinuation.finish()
            output.finish()
            throw .library(operation: "mosquitto_new", code: MosquittoCode.errno,
                           message: String(cString: strerror(errno)))
        }
        do {
            try Self.configure(mosq, configuration, reasons)
            self.network = try NetworkThread(mosq: mosq, box: box, configuration: configuration)
        } catch {
            mosquitto_destroy(mosq)
            Unmanaged<MosquittoCallbackBox>.fromOpaque(userdata).release()
            rawContinuation.finish()
            output.finish()
            throw error
        }
        self.state = Mutex(State(mosq: mosq))

        // The pump holds the client weakly: releasing the client ends the stream (deinit) and the pump.
        Task.detached { [weak self, output] in
            for await event in raw {
                guard let self else { break }
                self.handle(event)
            }
            output.finish()
        }
    }

    deinit {
        // A client dropped without `disconnect()`: end cleanly (no will), then free the handle and
        // only then the userdata box the network thread was using.
        let ended = state.withLock { s in close(&s) }
        box.continuation.finish()
        // A network thread that did not end still uses the box (and the handle): leave both.
        if ended { Unmanaged.passUnretained(box).release() }
    }

    /// Sends DISCONNECT if connected, ends the network thread and frees the handle; the caller
    /// holds the lock. Returns false when the thread did not end in time (stuck in a connect to a
    /// host that does not answer): the handle is then left to it rather than freed under it.
    private func close(_ s: inout State) -> Bool {
        guard let mosq = s.mosq else { return true }
        s.stopping = true
        var ended = true
        if s.phase == .started {
            mosquitto_disconnect(mosq)
            ended = network.stop(timeout: .seconds(10))
        }
        if ended { mosquitto_destroy(mosq) }
        s.mosq = nil
        s.phase = .closed
        s.connected = false
        return ended
    }

    /// libmosquitto's version, e.g. "2.0.11".
    public static var libraryVersion: String {
        _ = MosquittoLibrary.initialized
        return MosquittoLibrary.version
    }

    /// True between a CONNACK that accepted the connection and the next disconnect, as last
    /// reported by libmosquitto's thread (it can lag reality by the time one event takes).
    public var isConnected: Bool { state.withLock { $0.connected } }

    /// QoS ≥ 1 messages accepted by `publish` and not yet acknowledged by the broker.
    public var outstandingMessageCount: Int { state.withLock { $0.outstanding.count } }

    // MARK: - Connecting

    /// Starts the network thread, which connects. Returns at once; `.connected` or
    /// `.disconnected(.failed(...))` follow on `events`. A broker that is down or refuses is retried
    /// with back-off until `disconnect()`.
    ///
    /// Throws only for misuse: called twice, or after `disconnect()`. Everything else, including
    /// an unusable certificate file or a failed TLS handshake, is a failed attempt reported on
    /// `events` and retried (cli-and-config.md: `run` never gives up on the broker).
    public func start() throws(MQTTError) {
        try state.withLock { s throws(MQTTError) in
            guard s.mosq != nil, s.phase != .closed else { throw .closed }
            guard s.phase == .configured else { throw .alreadyStarted }
            s.phase = .started
            network.start()
        }
    }

    /// Ends the session cleanly: waits up to `timeout` for outstanding QoS ≥ 1 messages to be
    /// acknowledged (while the loop keeps reconnecting if needed), sends DISCONNECT (so the broker
    /// does not publish the will), stops the network thread and frees libmosquitto's client.
    /// Afterwards `events` ends and every call throws `.closed`.
    ///
    /// - Returns: how many QoS ≥ 1 messages were still unacknowledged (0 = all delivered). The
    ///   caller's spool should keep those.
    @discardableResult
    public func disconnect(timeout: Duration = .seconds(5)) async -> Int {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (pending, running) = state.withLock { ($0.outstanding.count, $0.phase == .started) }
            if pending == 0 || !running || ContinuousClock.now >= deadline { break }
            // Polling a counter the pump updates; the wait is bounded by `timeout`.
            try? await Task.sleep(for: .milliseconds(10))
        }
        let undelivered = state.withLock { s -> Int in
            guard s.mosq != nil else { return 0 }
            // The network thread sends DISCONNECT, reports it and ends; this waits for it.
            _ = close(&s)
            return s.outstanding.count
        }
        box.continuation.finish()
        return undelivered
    }

    /// Closes the TCP connection abruptly, without DISCONNECT, as a network failure would: the
    /// broker publishes the will, and the client reconnects with back-off.
    ///
    /// For tests (to prove the will is set) and for a watchdog that suspects a half-open connection.
    public func abortConnection() {
        state.withLock { s in
            guard let mosq = s.mosq else { return }
            let socket = mosquitto_socket(mosq)
            // shutdown, not close: the descriptor stays libmosquitto's, its next read sees EOF.
            if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    // MARK: - Publishing and subscribing

    /// Publishes `payload` to `topic`.
    ///
    /// - QoS 0 while offline throws `.notConnected` (nothing is kept).
    /// - QoS ≥ 1 is accepted while offline and sent after the reconnect (libmosquitto queues it),
    ///   until `maxQueuedMessages` are unacknowledged; then it throws `.queueFull` and the message
    ///   is NOT queued.
    /// - Returns: the message id; `.published(messageID:)` reports the acknowledgement of QoS ≥ 1.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false) throws(MQTTError) -> Int {
        try MQTTTopic.validateForPublish(topic)
        guard payload.count <= 268_435_455 else { throw .payloadTooLarge(bytes: payload.count) }
        return try state.withLock { s throws(MQTTError) -> Int in
            guard let mosq = s.mosq, !s.stopping else { throw .closed }
            let limit = configuration.maxQueuedMessages
            if qos != .atMostOnce && s.outstanding.count >= limit { throw .queueFull(limit: limit) }
            var messageID: Int32 = 0
            // Counted before the call: its PUBACK may arrive on the network thread before it returns.
            if qos != .atMostOnce { box.acknowledgeable.add(1, ordering: .releasing) }
            // `withCString` lends a native string's own NUL-terminated storage; passing `topic`
            // directly as the `char *` argument would copy it into a new array per message (#8).
            let rc = topic.withCString { cTopic in
                payload.withUnsafeBytes { bytes in
                    mosquitto_publish(mosq, &messageID, cTopic, Int32(bytes.count), bytes.baseAddress, qos.rawValue, retain)
                }
            }
            let queued = rc == MosquittoCode.success || (rc == MosquittoCode.noConnection && qos != .atMostOnce)
            if qos != .atMostOnce && !queued { box.acknowledgeable.subtract(1, ordering: .releasing) }
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
            if qos != .atMostOnce { s.outstanding.insert(messageID) }
            wakeNetwork(&s)
            return Int(messageID)
        }
    }

    /// Runs `body`, in which publishes are queued as usual but sent together when it returns: the
    /// network thread is woken once and writes them under one TCP cork, instead of being woken and
    /// sending a segment per message. For a burst that belongs together (the messages produced by
    /// one UWB notification); order and delivery are those of separate publishes. Nestable.
    @discardableResult
    public func batch<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        state.withLock { $0.batchDepth += 1 }
        defer {
            state.withLock { s in
                s.batchDepth -= 1
                if s.batchDepth == 0 && s.wakeDeferred {
                    s.wakeDeferred = false
                    network.wake()
                }
            }
        }
        return try body()
    }

    /// After queueing a packet: wake the network thread now, or when the open batch ends.
    private func wakeNetwork(_ s: inout State) {
        if s.batchDepth > 0 { s.wakeDeferred = true } else { network.wake() }
    }

    /// Publishes UTF-8 `text`.
    @discardableResult
    public func publish(topic: String, payload text: String, qos: MQTTQoS = .atMostOnce, retain: Bool = false) throws(MQTTError) -> Int {
        try publish(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    /// Subscribes to `filter` now if connected, and again after every reconnect (the session is
    /// clean, so the broker forgets subscriptions when the connection drops). `.subscribed`
    /// reports each SUBACK. Subscribing again to the same filter replaces its QoS.
    public func subscribe(topic filter: String, qos: MQTTQoS = .atLeastOnce) throws(MQTTError) {
        try MQTTTopic.validateFilter(filter)
        try state.withLock { s throws(MQTTError) in
            guard s.mosq != nil, !s.stopping else { throw .closed }
            s.subscriptions.removeAll { $0.filter == filter }
            s.subscriptions.append((filter, qos))
            if s.connected {
                Self.sendSubscribe(filter, qos, &s)
                wakeNetwork(&s)
            }
        }
    }

    /// Forgets `filter` and unsubscribes from it if connected.
    public func unsubscribe(topic filter: String) throws(MQTTError) {
        try MQTTTopic.validateFilter(filter)
        try state.withLock { s throws(MQTTError) in
            guard let mosq = s.mosq, !s.stopping else { throw .closed }
            s.subscriptions.removeAll { $0.filter == filter }
            if s.connected {
                _ = mosquitto_unsubscribe(mosq, nil, filter)
                wakeNetwork(&s)
            }
        }
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
        // network thread's TCP_CORK still joins what one loop iteration writes.
        try check(mosquitto_int_option(mosq, MOSQ_OPT_TCP_NODELAY, 1), "set TCP_NODELAY")
        if let will = configuration.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set(mosq, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos.rawValue, will.retain)
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

    /// Sends one SUBSCRIBE; the caller holds the lock. A failure here (e.g. the connection just
    /// dropped) is harmless: the next CONNACK subscribes again.
    private static func sendSubscribe(_ filter: String, _ qos: MQTTQoS, _ s: inout State) {
        guard let mosq = s.mosq else { return }
        var messageID: Int32 = 0
        if mosquitto_subscribe(mosq, &messageID, filter, qos.rawValue) == MosquittoCode.success {
            s.pendingSubscriptions[messageID] = filter
        }
    }

    /// The event pump's step: bookkeeping under the lock, then the public event.
    private func handle(_ event: MosquittoRawEvent) {
        switch event {
        case let .connack(code, flags):
            guard code == 0 else {
                let refusal = reasons.connackRefusal(code: code)
                state.withLock { $0.refusal = refusal }
                return
            }
            state.withLock { s in
                s.connected = true
                s.refusal = nil
                s.lastLogLine = nil
                s.openSSLLine = nil
                for subscription in s.subscriptions {
                    Self.sendSubscribe(subscription.filter, subscription.qos, &s)
                }
                wakeNetwork(&s)
            }
            output.yield(.connected(sessionPresent: flags & 1 != 0))

        case let .disconnect(code, threadErrno):
            let reason = state.withLock { s -> MQTTDisconnectReason in
                s.connected = false
                defer { s.refusal = nil; s.lastLogLine = nil; s.openSSLLine = nil }
                if s.stopping && code == MosquittoCode.success { return .requested }
                return .failed(s.refusal ?? reasons.disconnect(code: code, errno: threadErrno,
                                                               lastLogLine: s.openSSLLine ?? s.lastLogLine))
            }
            output.yield(.disconnected(reason))

        case let .publishAcknowledged(messageID, reasonCode):
            let known = state.withLock { $0.outstanding.remove(messageID) != nil }
            guard known else { return }   // QoS 0 publishes are reported too; they were never counted
            box.acknowledgeable.subtract(1, ordering: .releasing)
            if reasonCode >= 0x80 {
                output.yield(.publishFailed(messageID: Int(messageID),
                                            reason: String(cString: mosquitto_reason_string(reasonCode))))
            } else {
                output.yield(.published(messageID: Int(messageID)))
            }

        case let .message(message):
            output.yield(.message(message))

        case let .subscribeAcknowledged(messageID, granted):
            guard let filter = state.withLock({ $0.pendingSubscriptions.removeValue(forKey: messageID) }) else { return }
            let qos = granted.first.flatMap { MQTTQoS(rawValue: $0) }   // 0x80 = refused → nil
            output.yield(.subscribed(topic: filter, grantedQoS: qos))

        case let .log(line):
            // Kept for the next disconnect's reason: OpenSSL's line explains a TLS failure.
            state.withLock { s in
                s.lastLogLine = line
                if line.hasPrefix("OpenSSL Error") && s.openSSLLine == nil { s.openSSLLine = line }
            }
        }
    }
}
