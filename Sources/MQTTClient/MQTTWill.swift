/// The last will: what the broker publishes for this client when its connection ends without a
/// DISCONNECT (crash, power loss, network cut). mqtt-api.md uses it for `status` = `{"state":"offline"}`,
/// retained, QoS 1. A clean `disconnect()` does not trigger it, so the agent publishes `offline`
/// itself before disconnecting.
public struct MQTTWill: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    public var retain: Bool
    /// MQTT 5: its content type and user properties (the delay is the configuration's
    /// `willDelaySeconds`). Not sent on MQTT 3.1.1.
    public var properties: MQTTProperties

    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = true, properties: MQTTProperties = .none) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.properties = properties
    }

    public init(topic: String, payload: String, qos: MQTTQoS = .atLeastOnce, retain: Bool = true, properties: MQTTProperties = .none) {
        self.init(topic: topic, payload: Array(payload.utf8), qos: qos, retain: retain, properties: properties)
    }
}
