@testable import Gateway

/// The tests hand the publisher payloads of their own; the agent lends it its outbox's bytes.
extension Publisher {
    mutating func durable(topic: String, payload: ArraySlice<UInt8>, retain: Bool) -> String? {
        payload.withUnsafeBytes { durable(topic: topic, payload: $0, retain: retain) }
    }

    mutating func live(topic: String, payload: ArraySlice<UInt8>, qos: Int) {
        payload.withUnsafeBytes { live(topic: topic, payload: $0, qos: qos) }
    }

    mutating func response(topic: String, payload: ArraySlice<UInt8>, distinct: Bool, correlationData: [UInt8]?) {
        payload.withUnsafeBytes { response(topic: topic, payload: $0, distinct: distinct, correlationData: correlationData) }
    }
}
