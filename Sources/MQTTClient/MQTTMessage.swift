/// A message received on a subscription, copied out of libmosquitto's buffer (which is freed when
/// the callback returns) so it can cross threads.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: MQTTQoS
    /// True when the broker delivered it from its retained store (a retained message that existed
    /// before the subscription), false for live messages.
    public var retained: Bool
    /// Its MQTT 5 properties (none on MQTT 3.1.1): a request's response topic and correlation data.
    public var properties: MQTTProperties
    /// Set when the payload was larger than the client takes (`maximumIncomingPacketBytes`): it
    /// was not copied and `payload` is empty; this is its size in bytes.
    public var withheldPayloadBytes: Int?

    public init(topic: String, payload: [UInt8], qos: MQTTQoS, retained: Bool, properties: MQTTProperties = .none,
                withheldPayloadBytes: Int? = nil) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retained = retained
        self.properties = properties
        self.withheldPayloadBytes = withheldPayloadBytes
    }

    /// The payload as UTF-8 text, or nil when it is not valid UTF-8.
    public var text: String? {
        String(validating: payload, as: UTF8.self)
    }
}
