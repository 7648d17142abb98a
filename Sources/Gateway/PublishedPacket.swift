/// A PUBLISH packet the agent handed to the broker: its topic and its size on the wire as MQTT
/// 3.1.1 writes it (MQTT 5 adds its property length). On 3.1.1 a broker closes the connection of
/// a client that sends a packet over its limit (mosquitto's `max_packet_size`) without saying
/// why, so the largest one sent on a connection is what the core names when the broker closes it
/// soon after; on MQTT 5 the broker's CONNACK gives its limit and libmosquitto refuses such a
/// packet before sending it.
public struct PublishedPacket: Sendable, Equatable {
    public var topic: String
    /// Fixed header, topic, packet id (QoS 1) and payload.
    public var bytes: Int

    public init(topic: String, payloadBytes: Int, qos: Int) {
        self.topic = topic
        let remaining = 2 + topic.utf8.count + (qos > 0 ? 2 : 0) + payloadBytes
        // The remaining length is written in 7-bit groups: 1 to 4 bytes.
        var lengthBytes = 1
        var rest = remaining >> 7
        while rest > 0 {
            lengthBytes += 1
            rest >>= 7
        }
        bytes = 1 + lengthBytes + remaining
    }
}
