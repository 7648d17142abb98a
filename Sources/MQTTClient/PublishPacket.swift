import Vocabulary

/// A QoS 0 PUBLISH packet as bytes (MQTT 3.1.1 §3.3, MQTT 5.0 §3.3): what the client writes
/// to the broker itself for live data (see `LiveWrites`).
///
/// Fixed header `0x30` (| 1 when retained), the remaining length as a variable byte integer,
/// the topic as a two-byte length and its UTF-8, for MQTT 5 the property section (`properties`,
/// already encoded with its length; without any, the single byte 0), then the payload. QoS 0
/// has no packet identifier.
enum PublishPacket {
    /// Appends the packet to `bytes`, its room reserved once: the agent writes two of these per
    /// measurement.
    static func append(topic: String, payload: UnsafeRawBufferPointer, retain: Bool, version: MQTTProtocolVersion,
                       properties: UnsafeBufferPointer<UInt8>?, to bytes: inout ByteBuffer) {
        // A native string's bytes where they are (the agent's topics are native); another is
        // made native in a copy first.
        if topic.utf8.withContiguousStorageIfAvailable({ write(topicBytes: $0) }) == nil {
            var topic = topic
            topic.withUTF8 { write(topicBytes: $0) }
        }

        func write(topicBytes: UnsafeBufferPointer<UInt8>) {
            let propertyBytes = version == .v5 ? properties?.count ?? 1 : 0
            let remaining = 2 + topicBytes.count + propertyBytes + payload.count
            // The fixed header, at most four bytes of remaining length, then the rest.
            var p = bytes.reserve(1 + 4 + remaining)
            let start = p
            p[0] = retain ? 0x31 : 0x30
            p += 1 + VariableByteInteger.write(remaining, at: p + 1)
            p[0] = UInt8(topicBytes.count >> 8)
            p[1] = UInt8(topicBytes.count & 0xFF)
            p += 2
            if let base = topicBytes.baseAddress { p.update(from: base, count: topicBytes.count) }
            p += topicBytes.count
            if propertyBytes > 0 {
                if let section = properties?.baseAddress { p.update(from: section, count: propertyBytes) } else { p[0] = 0 }
                p += propertyBytes
            }
            if let base = payload.baseAddress { UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: payload.count) }
            p += payload.count
            bytes.advance(by: p - start)
        }
    }
}
