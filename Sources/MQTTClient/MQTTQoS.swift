/// MQTT quality of service. QoS 1 and 2 messages count against `maxQueuedMessages` until the
/// broker acknowledges them; QoS 0 is fire-and-forget and is refused while offline.
public enum MQTTQoS: Int32, Sendable, CaseIterable {
    case atMostOnce = 0
    case atLeastOnce = 1
    case exactlyOnce = 2
}
