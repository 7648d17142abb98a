/// A QoS 0 PUBLISH packet as bytes (MQTT 3.1.1 §3.3, MQTT 5.0 §3.3): what the client writes
/// to the broker itself for live data (see `LiveWrites`).
///
/// Fixed header `0x30` (| 1 when retained), the remaining length as a variable byte integer,
/// the topic as a two-byte length and its UTF-8, for MQTT 5 the property section (`properties`,
/// already encoded with its length; an empty one is the single byte 0), then the payload. QoS 0
/// has no packet identifier.
enum PublishPacket {
    static let noProperties: [UInt8] = [0]

    /// Appends the packet to `bytes` in four copies (header, topic, properties, payload), each
    /// from contiguous bytes: the agent writes two of these per measurement.
    static func append(topic: String, payload: UnsafeRawBufferPointer, retain: Bool, version: MQTTProtocolVersion,
                       properties: [UInt8], to bytes: inout [UInt8]) {
        var topic = topic
        topic.withUTF8 { topicBytes in
            let remaining = 2 + topicBytes.count + (version == .v5 ? properties.count : 0) + payload.count
            // The fixed header, at most four bytes of remaining length, the topic's length.
            var header: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &header) { raw in
                let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                p[0] = retain ? 0x31 : 0x30
                var end = 1 + VariableByteInteger.write(remaining, at: p + 1)
                p[end] = UInt8(topicBytes.count >> 8)
                p[end + 1] = UInt8(topicBytes.count & 0xFF)
                end += 2
                bytes.append(contentsOf: UnsafeBufferPointer(start: p, count: end))
            }
            bytes.append(contentsOf: topicBytes)
            if version == .v5 { bytes.append(contentsOf: properties) }
            payload.withMemoryRebound(to: UInt8.self) { bytes.append(contentsOf: $0) }
        }
    }
}
