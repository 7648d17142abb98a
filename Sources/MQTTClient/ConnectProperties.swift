import CMosquitto

/// The CONNECT properties of an MQTT 5 attempt: the Session Expiry Interval that keeps the
/// session for the will delay (`MQTTConfiguration.keepsSession`), and the Maximum Packet Size
/// the client takes. Built on the loop, handed to the connect thread, which frees it after
/// `mosquitto_connect_bind_v5` (libmosquitto keeps its own copy for reconnects).
struct ConnectProperties: @unchecked Sendable {
    private(set) var list: OpaquePointer?

    init(_ configuration: MQTTConfiguration) {
        guard configuration.protocolVersion == .v5 else { return }
        var list: OpaquePointer?
        if configuration.keepsSession {
            _ = mosquitto_property_add_int32(&list, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), configuration.willDelaySeconds)
        }
        if let maximum = configuration.maximumIncomingPacketBytes {
            _ = mosquitto_property_add_int32(&list, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), UInt32(maximum))
        }
        self.list = list
    }

    func free() {
        var list = list
        mosquitto_property_free_all(&list)
    }
}
