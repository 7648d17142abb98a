/// Everything that can go wrong, as text an operator can act on.
///
/// No case ever carries the password: configuration errors name the key, connection errors name
/// host and port, TLS errors name the certificate files. URLs with credentials are redacted
/// before they are stored here.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `mqtt.url` is not `mqtt://host[:port]` or `mqtts://host[:port]`.
    case invalidURL(url: String, reason: String)
    /// A configuration value is out of range or inconsistent (names the key).
    case invalidConfiguration(String)
    /// A file the configuration names cannot be read (role: "CA file", "certificate file", "key file").
    case fileNotReadable(role: String, path: String)
    /// A topic or topic filter that MQTT does not allow.
    case invalidTopic(topic: String, reason: String)
    /// The payload exceeds what MQTT (or the broker) accepts.
    case payloadTooLarge(bytes: Int)
    /// QoS 0 while offline: the message was not sent and is not kept.
    case notConnected
    /// QoS 0 while the broker's socket is backed up (`bytes` wait to be written): the message was
    /// not sent and is not kept, as live data whose newer value will follow.
    case backlog(bytes: Int)
    /// `maxQueuedMessages` QoS ≥ 1 messages are already waiting for their acknowledgement; the
    /// message was not accepted, so the caller's spool keeps it.
    case queueFull(limit: Int)
    /// `start()` was called twice.
    case alreadyStarted
    /// The client was disconnected with `disconnect()`; make a new one.
    case closed
    /// The broker could not be reached or refused the connection (not for credentials).
    case connectionRefused(reason: String)
    /// The broker refused the credentials (bad username/password, or not authorized).
    case notAuthorized(reason: String)
    /// TLS set-up or handshake failed; the files involved are named.
    case tls(reason: String, caFile: String?, certFile: String?)
    /// An established connection was lost (network, broker stopped, keepalive).
    case connectionLost(reason: String)
    /// Any other libmosquitto error: the operation, its code and libmosquitto's text.
    case library(operation: String, code: Int32, message: String)

    public var description: String {
        switch self {
        case let .invalidURL(url, reason):
            return "invalid MQTT URL '\(url)': \(reason)"
        case let .invalidConfiguration(text):
            return "invalid MQTT configuration: \(text)"
        case let .fileNotReadable(role, path):
            return "cannot read the \(role) \(path)"
        case let .invalidTopic(topic, reason):
            return "invalid MQTT topic '\(topic)': \(reason)"
        case let .payloadTooLarge(bytes):
            return "MQTT payload of \(bytes) bytes is too large"
        case .notConnected:
            return "not connected to the MQTT broker (QoS 0 message dropped)"
        case let .backlog(bytes):
            return "the MQTT broker is not reading (\(bytes) bytes wait to be written; QoS 0 message dropped)"
        case let .queueFull(limit):
            return "MQTT publish queue full (\(limit) messages waiting for acknowledgement)"
        case .alreadyStarted:
            return "the MQTT client was already started"
        case .closed:
            return "the MQTT client was disconnected and cannot be used again"
        case let .connectionRefused(reason):
            return "MQTT connection refused: \(reason)"
        case let .notAuthorized(reason):
            return "MQTT broker refused the credentials: \(reason)"
        case let .tls(reason, caFile, certFile):
            var files: [String] = []
            if let caFile { files.append("CA file \(caFile)") }
            if let certFile { files.append("certificate file \(certFile)") }
            return "MQTT TLS failure: \(reason)" + (files.isEmpty ? " (system CA store)" : " (\(files.joined(separator: ", ")))")
        case let .connectionLost(reason):
            return "MQTT connection lost: \(reason)"
        case let .library(operation, code, message):
            return "\(operation) failed: \(message) (libmosquitto error \(code))"
        }
    }
}
