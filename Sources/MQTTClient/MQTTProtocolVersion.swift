/// The MQTT protocol version spoken on the wire. 3.1.1 is libmosquitto's default; 5 adds reason
/// codes (e.g. a PUBACK that says "not authorized"), which `MQTTEvent.publishFailed` reports.
public enum MQTTProtocolVersion: Sendable, Equatable {
    case v311
    case v5
}
