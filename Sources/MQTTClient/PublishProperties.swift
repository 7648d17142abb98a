import CMosquitto

/// MQTT 5 properties made ready for publishing many messages with: libmosquitto's property list
/// for the packets it writes, and the encoded property section for the live packets the client
/// writes itself (`LiveWrites`). Build one per kind of message, not per message: libmosquitto
/// copies the list into each QoS 1 message it keeps, and the encoding is done once here.
///
/// Immutable after `init`; the list is freed with the object. Used on the client's loop.
public final class PublishProperties: @unchecked Sendable {
    public let properties: MQTTProperties
    /// The property section as it goes on the wire (its length first), in memory the object
    /// owns: lent to every live packet without a reference of its own to retain and release
    /// (an array's, read from a class, cost both for every message).
    let encoded: UnsafeBufferPointer<UInt8>
    /// libmosquitto's list (`mosquitto_property *`), nil when there are no properties.
    let list: OpaquePointer?

    public init(_ properties: MQTTProperties) throws(MQTTError) {
        self.properties = properties
        list = try Self.list(properties)
        let bytes = properties.encoded
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = storage.initialize(from: bytes)
        encoded = UnsafeBufferPointer(storage)
    }

    deinit {
        var list = list
        mosquitto_property_free_all(&list)
        encoded.deallocate()
    }

    /// `properties` as a new libmosquitto list (nil when empty), after checking what MQTT cannot
    /// carry; `willDelaySeconds` > 0 adds a will's Will Delay Interval.
    static func list(_ properties: MQTTProperties, willDelaySeconds: UInt32 = 0) throws(MQTTError) -> OpaquePointer? {
        try properties.validate()
        var list: OpaquePointer?
        func check(_ rc: Int32) throws(MQTTError) {
            guard rc == MosquittoCode.success else {
                mosquitto_property_free_all(&list)
                throw .library(operation: "add an MQTT 5 property", code: rc, message: String(cString: mosquitto_strerror(rc)))
            }
        }
        if willDelaySeconds > 0 {
            try check(mosquitto_property_add_int32(&list, Int32(MQTT_PROP_WILL_DELAY_INTERVAL.rawValue), willDelaySeconds))
        }
        if let seconds = properties.messageExpirySeconds {
            try check(mosquitto_property_add_int32(&list, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), seconds))
        }
        if let type = properties.contentType {
            try check(mosquitto_property_add_string(&list, Int32(MQTT_PROP_CONTENT_TYPE.rawValue), type))
        }
        if let topic = properties.responseTopic {
            try check(mosquitto_property_add_string(&list, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), topic))
        }
        if let data = properties.correlationData {
            try check(data.withUnsafeBytes { bytes in
                mosquitto_property_add_binary(&list, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), bytes.baseAddress, UInt16(bytes.count))
            })
        }
        for property in properties.userProperties {
            try check(mosquitto_property_add_string_pair(&list, Int32(MQTT_PROP_USER_PROPERTY.rawValue), property.name, property.value))
        }
        return list
    }
}
