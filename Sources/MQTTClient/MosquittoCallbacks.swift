import Synchronization
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CMosquitto

/// What a libmosquitto callback reports, copied out of C memory. The client takes these after
/// each call into libmosquitto and does all bookkeeping then, outside the callback.
enum MosquittoRawEvent: Sendable {
    case connack(code: Int32, flags: Int32)
    /// `errno` as seen when the callback ran (MOSQ_ERR_ERRNO means "see errno").
    case disconnect(code: Int32, errno: Int32)
    case publishAcknowledged(messageID: Int32, reasonCode: Int32)
    case message(MQTTMessage)
    case subscribeAcknowledged(messageID: Int32, granted: [Int32])
    /// libmosquitto's warning and error log lines (they carry OpenSSL's reason for a TLS failure).
    case log(String)
}

/// The object behind libmosquitto's `userdata` pointer.
///
/// Callbacks run on the loop's thread (inside `mosquitto_loop_read` and friends), except the log
/// callback, which can also run on the thread of a blocking connect; so what they report is
/// queued under a lock. It is passed with `Unmanaged.passRetained` and released only after
/// `mosquitto_destroy`, so no callback ever sees a dangling pointer.
final class MosquittoCallbackBox: Sendable {
    private let pending = Mutex<[MosquittoRawEvent]>([])
    /// QoS ≥ 1 messages published and not yet acknowledged. libmosquitto calls `on_publish` for
    /// every QoS 0 send too; while this is zero those calls carry nothing the client counts and
    /// are not queued at all (one fewer allocation per live message).
    let acknowledgeable = Atomic<Int>(0)
    /// A received payload larger than this is not copied (`MQTTMessage.withheldPayloadBytes`).
    let payloadLimit: Int

    init(payloadLimit: Int) {
        self.payloadLimit = payloadLimit
    }

    func report(_ event: MosquittoRawEvent) {
        pending.withLock { $0.append(event) }
    }

    /// What the callbacks reported since the last call, oldest first, in `events` (what it held
    /// is dropped); the box keeps `events`' storage for the next reports. Swapped rather than
    /// copied out: emptying the box's array while a copy of it was handed out allocated a new
    /// one at every acknowledgement.
    func take(into events: inout [MosquittoRawEvent]) {
        events.removeAll(keepingCapacity: true)
        pending.withLock { swap(&$0, &events) }
    }

    /// The box behind a `userdata` pointer; nil only if libmosquitto passes none (it always does).
    static func from(_ userdata: UnsafeMutableRawPointer?) -> MosquittoCallbackBox? {
        guard let userdata else { return nil }
        return Unmanaged<MosquittoCallbackBox>.fromOpaque(userdata).takeUnretainedValue()
    }
}

/// Installs the callbacks. They are plain global functions in a file that is not `main.swift`:
/// closures in top-level code are inferred `@MainActor` and crash with SIGILL when called from
/// another thread (design notes §2.2). Each one only copies its arguments and queues them; none
/// blocks, touches client state or calls back into libmosquitto.
enum MosquittoCallbacks {
    static func install(on mosq: OpaquePointer) {
        mosquitto_connect_v5_callback_set(mosq, mosquittoOnConnect)
        mosquitto_disconnect_v5_callback_set(mosq, mosquittoOnDisconnect)
        mosquitto_publish_v5_callback_set(mosq, mosquittoOnPublish)
        mosquitto_message_v5_callback_set(mosq, mosquittoOnMessage)
        mosquitto_subscribe_v5_callback_set(mosq, mosquittoOnSubscribe)
        mosquitto_log_callback_set(mosq, mosquittoOnLog)
    }

    /// libmosquitto formats every log line into a fresh allocation whenever a log callback is
    /// set — one "sending PUBLISH" line per message, two mallocs and a vsnprintf each, whatever
    /// the level. The lines only matter while connecting (they carry OpenSSL's reason for a TLS
    /// failure), so the client listens from each attempt until the CONNACK.
    static func setLogging(_ on: Bool, on mosq: OpaquePointer) {
        mosquitto_log_callback_set(mosq, on ? mosquittoOnLog : nil)
    }
}

private func mosquittoOnConnect(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ code: Int32,
                                _ flags: Int32, _ properties: OpaquePointer?) {
    guard let box = MosquittoCallbackBox.from(userdata) else { return }
    box.report(.connack(code: code, flags: flags))
}

private func mosquittoOnDisconnect(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ code: Int32,
                                   _ properties: OpaquePointer?) {
    let threadErrno = errno
    guard let box = MosquittoCallbackBox.from(userdata) else { return }
    box.report(.disconnect(code: code, errno: threadErrno))
}

private func mosquittoOnPublish(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ messageID: Int32,
                                _ reasonCode: Int32, _ properties: OpaquePointer?) {
    guard let box = MosquittoCallbackBox.from(userdata), box.acknowledgeable.load(ordering: .acquiring) > 0 else { return }
    box.report(.publishAcknowledged(messageID: messageID, reasonCode: reasonCode))
}

private func mosquittoOnMessage(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?,
                                _ message: UnsafePointer<mosquitto_message>?, _ properties: OpaquePointer?) {
    guard let box = MosquittoCallbackBox.from(userdata), let message = message?.pointee, let topic = message.topic else { return }
    var payload: [UInt8] = []
    let length = Int(message.payloadlen)
    // libmosquitto has read the whole packet (it has no limit of its own for what it receives);
    // an oversized payload is at least not copied a third time.
    let withheld = length > box.payloadLimit ? length : nil
    if withheld == nil, let bytes = message.payload, length > 0 {
        payload = Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }
    let received = MQTTMessage(topic: String(cString: topic), payload: payload,
                               qos: MQTTQoS(rawValue: message.qos) ?? .atMostOnce, retained: message.retain,
                               properties: properties.map(readProperties) ?? .none, withheldPayloadBytes: withheld)
    box.report(.message(received))
}

/// The properties of a received PUBLISH the client's users read: what a request's answer needs,
/// the content type, the user properties.
private func readProperties(_ list: OpaquePointer) -> MQTTProperties {
    var result = MQTTProperties()
    var text: UnsafeMutablePointer<CChar>?
    if mosquitto_property_read_string(list, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), &text, false) != nil, let text {
        result.responseTopic = String(cString: text)
        free(text)
    }
    text = nil
    if mosquitto_property_read_string(list, Int32(MQTT_PROP_CONTENT_TYPE.rawValue), &text, false) != nil, let text {
        result.contentType = String(cString: text)
        free(text)
    }
    var data: UnsafeMutableRawPointer?
    var length: UInt16 = 0
    if mosquitto_property_read_binary(list, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), &data, &length, false) != nil {
        result.correlationData = data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
        free(data)
    }
    var expiry: UInt32 = 0
    if mosquitto_property_read_int32(list, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), &expiry, false) != nil {
        result.messageExpirySeconds = expiry
    }
    var cursor: OpaquePointer? = list
    var skipFirst = false
    while true {
        var name: UnsafeMutablePointer<CChar>?
        var value: UnsafeMutablePointer<CChar>?
        guard let found = mosquitto_property_read_string_pair(cursor, Int32(MQTT_PROP_USER_PROPERTY.rawValue), &name, &value, skipFirst) else { break }
        if let name, let value { result.userProperties.append(.init(String(cString: name), String(cString: value))) }
        free(name)
        free(value)
        cursor = found
        skipFirst = true
    }
    return result
}

private func mosquittoOnSubscribe(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ messageID: Int32,
                                  _ count: Int32, _ granted: UnsafePointer<Int32>?, _ properties: OpaquePointer?) {
    let grantedQoS = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(count, 0)))) } ?? []
    MosquittoCallbackBox.from(userdata)?.report(
        .subscribeAcknowledged(messageID: messageID, granted: grantedQoS))
}

private func mosquittoOnLog(_ mosq: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?, _ level: Int32,
                            _ text: UnsafePointer<CChar>?) {
    // Only warnings and errors: debug lines would flood the stream on every packet.
    guard level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0, let text else { return }
    MosquittoCallbackBox.from(userdata)?.report(.log(String(cString: text)))
}
