import Synchronization
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CMosquitto

/// What a libmosquitto callback reports, copied out of C memory so it can cross threads.
/// The client's event pump turns these into `MQTTEvent`s and does all bookkeeping.
enum MosquittoRawEvent: Sendable {
    case connack(code: Int32, flags: Int32)
    /// `errno` as seen on the network thread when the callback ran (MOSQ_ERR_ERRNO means "see errno").
    case disconnect(code: Int32, errno: Int32)
    case publishAcknowledged(messageID: Int32, reasonCode: Int32)
    case message(MQTTMessage)
    case subscribeAcknowledged(messageID: Int32, granted: [Int32])
    /// libmosquitto's warning and error log lines (they carry OpenSSL's reason for a TLS failure).
    case log(String)
}

/// The object behind libmosquitto's `userdata` pointer.
///
/// It is passed with `Unmanaged.passRetained` and released only after the network thread has
/// ended and `mosquitto_destroy`, so that thread never sees a dangling pointer. Its members are
/// Sendable (an `AsyncStream` continuation is thread-safe, the counters are atomics), so it is
/// Sendable without `@unchecked`.
final class MosquittoCallbackBox: Sendable {
    let continuation: AsyncStream<MosquittoRawEvent>.Continuation
    /// QoS ≥ 1 messages published and not yet acknowledged. libmosquitto calls `on_publish` for
    /// every QoS 0 send too; while this is zero those calls carry nothing the client counts, and
    /// skipping them spares a stream hop and a wake-up per live message (make bench).
    let acknowledgeable = Atomic<Int>(0)
    /// Counted on the network thread, which reads them to tell whether libmosquitto already
    /// reported the end of an attempt (`on_disconnect`) and whether the broker accepted it.
    let disconnectCallbacks = Atomic<Int>(0)
    let acceptedConnacks = Atomic<Int>(0)

    init(continuation: AsyncStream<MosquittoRawEvent>.Continuation) {
        self.continuation = continuation
    }

    /// The box behind a `userdata` pointer; nil only if libmosquitto passes none (it always does).
    static func from(_ userdata: UnsafeMutableRawPointer?) -> MosquittoCallbackBox? {
        guard let userdata else { return nil }
        return Unmanaged<MosquittoCallbackBox>.fromOpaque(userdata).takeUnretainedValue()
    }
}

/// Installs the callbacks. They are plain global functions in a file that is not `main.swift`:
/// closures in top-level code are inferred `@MainActor` and crash with SIGILL when libmosquitto's
/// thread calls them (design notes §2.2). Each one only copies its arguments and yields them into
/// the stream; none blocks, touches client state or calls back into libmosquitto.
enum MosquittoCallbacks {
    static func install(on mosq: OpaquePointer) {
        mosquitto_connect_v5_callback_set(mosq, mosquittoOnConnect)
        mosquitto_disconnect_v5_callback_set(mosq, mosquittoOnDisconnect)
        mosquitto_publish_v5_callback_set(mosq, mosquittoOnPublish)
        mosquitto_message_v5_callback_set(mosq, mosquittoOnMessage)
        mosquitto_subscribe_v5_callback_set(mosq, mosquittoOnSubscribe)
        mosquitto_log_callback_set(mosq, mosquittoOnLog)
    }
}

private func mosquittoOnConnect(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ code: Int32,
                                _ flags: Int32, _ properties: OpaquePointer?) {
    guard let box = MosquittoCallbackBox.from(userdata) else { return }
    if code == 0 { box.acceptedConnacks.add(1, ordering: .releasing) }
    box.continuation.yield(.connack(code: code, flags: flags))
}

private func mosquittoOnDisconnect(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ code: Int32,
                                   _ properties: OpaquePointer?) {
    let threadErrno = errno
    guard let box = MosquittoCallbackBox.from(userdata) else { return }
    box.disconnectCallbacks.add(1, ordering: .releasing)
    box.continuation.yield(.disconnect(code: code, errno: threadErrno))
}

private func mosquittoOnPublish(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ messageID: Int32,
                                _ reasonCode: Int32, _ properties: OpaquePointer?) {
    guard let box = MosquittoCallbackBox.from(userdata), box.acknowledgeable.load(ordering: .acquiring) > 0 else { return }
    box.continuation.yield(.publishAcknowledged(messageID: messageID, reasonCode: reasonCode))
}

private func mosquittoOnMessage(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?,
                                _ message: UnsafePointer<mosquitto_message>?, _ properties: OpaquePointer?) {
    guard let message = message?.pointee, let topic = message.topic else { return }
    var payload: [UInt8] = []
    if let bytes = message.payload, message.payloadlen > 0 {
        payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(message.payloadlen)))
    }
    let received = MQTTMessage(topic: String(cString: topic), payload: payload,
                               qos: MQTTQoS(rawValue: message.qos) ?? .atMostOnce, retained: message.retain)
    MosquittoCallbackBox.from(userdata)?.continuation.yield(.message(received))
}

private func mosquittoOnSubscribe(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ messageID: Int32,
                                  _ count: Int32, _ granted: UnsafePointer<Int32>?, _ properties: OpaquePointer?) {
    let grantedQoS = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(count, 0)))) } ?? []
    MosquittoCallbackBox.from(userdata)?.continuation.yield(
        .subscribeAcknowledged(messageID: messageID, granted: grantedQoS))
}

private func mosquittoOnLog(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ level: Int32,
                            _ text: UnsafePointer<CChar>?) {
    // Only warnings and errors: debug lines would flood the stream on every packet.
    guard level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0, let text else { return }
    MosquittoCallbackBox.from(userdata)?.continuation.yield(.log(String(cString: text)))
}
