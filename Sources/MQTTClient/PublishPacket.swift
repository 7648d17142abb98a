/// A QoS 0 PUBLISH packet as bytes (MQTT 3.1.1 §3.3, MQTT 5.0 §3.3): what the client writes
/// to the broker itself for live data (see `LiveWrites`).
///
/// Fixed header `0x30` (| 1 when retained), the remaining length as a variable byte integer,
/// the topic as a two-byte length and its UTF-8, for MQTT 5 the property section (`properties`,
/// already encoded with its length; an empty one is the single byte 0), then the payload. QoS 0
/// has no packet identifier.
enum PublishPacket {
    static let noProperties: [UInt8] = [0]

    static func append(topic: String, payload: ArraySlice<UInt8>, retain: Bool, version: MQTTProtocolVersion,
                       properties: [UInt8], to bytes: inout [UInt8]) {
        let topicLength = topic.utf8.count
        let remaining = 2 + topicLength + (version == .v5 ? properties.count : 0) + payload.count
        bytes.append(retain ? 0x31 : 0x30)
        VariableByteInteger.append(remaining, to: &bytes)
        bytes.append(UInt8(topicLength >> 8))
        bytes.append(UInt8(topicLength & 0xFF))
        bytes.append(contentsOf: topic.utf8)
        if version == .v5 { bytes.append(contentsOf: properties) }
        bytes.append(contentsOf: payload)
    }
}
