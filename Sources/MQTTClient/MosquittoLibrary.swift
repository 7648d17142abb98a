import CMosquitto

/// Process-wide libmosquitto state.
///
/// `mosquitto_lib_init` must run once before any other call and is not thread-safe itself; a
/// `static let` is initialised exactly once, atomically (swift_once), on first use. The matching
/// `mosquitto_lib_cleanup` is never called: clients may live until the process exits.
enum MosquittoLibrary {
    static let initialized: Void = {
        mosquitto_lib_init()
    }()

    /// libmosquitto's text for an error code (for MOSQ_ERR_ERRNO, pass the errno captured on the
    /// thread where it happened instead; `mosquitto_strerror` would read this thread's errno).
    static func message(for code: Int32) -> String {
        String(cString: mosquitto_strerror(code))
    }
}

/// libmosquitto's return codes as `Int32`, the type its functions return.
enum MosquittoCode {
    static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)
    static let noMemory = Int32(MOSQ_ERR_NOMEM.rawValue)
    static let protocolError = Int32(MOSQ_ERR_PROTOCOL.rawValue)
    static let invalid = Int32(MOSQ_ERR_INVAL.rawValue)
    static let noConnection = Int32(MOSQ_ERR_NO_CONN.rawValue)
    static let connectionRefused = Int32(MOSQ_ERR_CONN_REFUSED.rawValue)
    static let notFound = Int32(MOSQ_ERR_NOT_FOUND.rawValue)
    static let connectionLost = Int32(MOSQ_ERR_CONN_LOST.rawValue)
    static let tls = Int32(MOSQ_ERR_TLS.rawValue)
    static let payloadSize = Int32(MOSQ_ERR_PAYLOAD_SIZE.rawValue)
    static let notSupported = Int32(MOSQ_ERR_NOT_SUPPORTED.rawValue)
    static let auth = Int32(MOSQ_ERR_AUTH.rawValue)
    static let aclDenied = Int32(MOSQ_ERR_ACL_DENIED.rawValue)
    static let unknown = Int32(MOSQ_ERR_UNKNOWN.rawValue)
    static let errno = Int32(MOSQ_ERR_ERRNO.rawValue)
    static let lookup = Int32(MOSQ_ERR_EAI.rawValue)
    static let proxy = Int32(MOSQ_ERR_PROXY.rawValue)
    static let malformedUTF8 = Int32(MOSQ_ERR_MALFORMED_UTF8.rawValue)
    static let keepalive = Int32(MOSQ_ERR_KEEPALIVE.rawValue)
    /// Not an error code: MQTT 5's CONNACK reason "unsupported protocol version", which
    /// libmosquitto also reports for a 3.1.1 broker's "unacceptable protocol version".
    static let unsupportedProtocolVersion = Int32(MQTT_RC_UNSUPPORTED_PROTOCOL_VERSION.rawValue)
    static let tlsHandshake = Int32(MOSQ_ERR_TLS_HANDSHAKE.rawValue)
    static let qosNotSupported = Int32(MOSQ_ERR_QOS_NOT_SUPPORTED.rawValue)
    static let oversizePacket = Int32(MOSQ_ERR_OVERSIZE_PACKET.rawValue)
}
