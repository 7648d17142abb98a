#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Everything `MQTTClient` needs to connect, mirroring the `mqtt:` keys of cli-and-config.md.
///
/// The password is a value, not a path: the caller reads `password_file` (dropping one trailing
/// newline) so that this module never touches the file system for secrets. `description` and
/// `customMirror` redact it, so printing or dumping a configuration never leaks it.
public struct MQTTConfiguration: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    public var broker: MQTTBrokerAddress
    /// nil: libmosquitto generates a random id (then the broker cannot resume a session).
    public var clientID: String?
    public var username: String?
    public var password: String?
    /// TLS trust anchors (PEM). nil with `mqtts://`: the operating system's CA store.
    public var caFile: String?
    /// Client certificate and its unencrypted key (PEM), for brokers that require client certificates.
    public var certFile: String?
    public var keyFile: String?
    /// Seconds between PINGREQs when idle; 0 disables keepalive, otherwise 5…65535 (libmosquitto's limit).
    public var keepaliveSeconds: Int = 30
    public var protocolVersion: MQTTProtocolVersion = .v311
    public var will: MQTTWill?
    /// Reconnect delays, in whole seconds: after a lost or failed connection (refused, credentials,
    /// TLS, DNS) the client waits min, 2·min, 4·min … capped at max, starting again at min after a
    /// CONNACK (`ReconnectBackoff`).
    public var reconnectDelayMinSeconds: Int = 1
    public var reconnectDelayMaxSeconds: Int = 60
    /// QoS ≥ 1 messages libmosquitto sends before waiting for acknowledgements (MQTT "send maximum").
    public var maxInflightMessages: Int = 20
    /// QoS ≥ 1 messages accepted by `publish` but not yet acknowledged, in flight or queued inside
    /// libmosquitto (whose own queue is unbounded). Beyond it `publish` throws `.queueFull` so that
    /// the agent's spool takes over instead of memory growing without bound.
    public var maxQueuedMessages: Int = 1000
    /// MQTT 5: how long the broker waits after the connection is lost before it publishes the
    /// will, so that a client that is back sooner (a restart) never appears offline. The broker
    /// keeps the session for as long (Session Expiry Interval); 0: the will goes at once.
    public var willDelaySeconds: UInt32 = 0
    /// The largest packet the client takes. MQTT 5 tells the broker (Maximum Packet Size in
    /// CONNECT), which then never delivers a larger one; on MQTT 3.1.1 libmosquitto still reads
    /// such a packet whole, and the client does not copy its payload
    /// (`MQTTMessage.withheldPayloadBytes`). nil: no limit but MQTT's.
    public var maximumIncomingPacketBytes: Int?

    /// Whether the broker is to keep the session across connections: on MQTT 5 with a will delay,
    /// so that a client back within the delay continues its session (the broker then drops the
    /// will; a clean start would make it publish the will at once). Needs a client id and a will.
    var keepsSession: Bool { protocolVersion == .v5 && willDelaySeconds > 0 && clientID != nil && will != nil }

    /// A configuration for `url` (`mqtt://host[:port]` or `mqtts://host[:port]`) with the defaults above.
    public init(url: String, clientID: String? = nil) throws(MQTTError) {
        self.broker = try MQTTBrokerAddress(url: url)
        self.clientID = clientID
    }

    public init(broker: MQTTBrokerAddress, clientID: String? = nil) {
        self.broker = broker
        self.clientID = clientID
    }

    /// Checks ranges, consistency and that the named files are readable, so that mistakes surface
    /// as one clear error at start rather than as a silent reconnect loop.
    public func validate() throws(MQTTError) {
        if let clientID {
            guard !clientID.isEmpty else { throw .invalidConfiguration("client_id is empty") }
            guard clientID.utf8.count <= 65535, !clientID.utf8.contains(0) else {
                throw .invalidConfiguration("client_id is too long or contains a NUL character")
            }
        }
        if let username, username.isEmpty || username.utf8.contains(0) {
            throw .invalidConfiguration("username is empty or contains a NUL character")
        }
        if let password {
            guard username != nil else { throw .invalidConfiguration("a password needs a username") }
            guard !password.utf8.contains(0) else {
                throw .invalidConfiguration("the password contains a NUL character")
            }
        }
        guard keepaliveSeconds == 0 || (5...65535).contains(keepaliveSeconds) else {
            throw .invalidConfiguration("keepalive must be 0 or 5…65535 seconds, not \(keepaliveSeconds)")
        }
        guard reconnectDelayMinSeconds >= 1, reconnectDelayMaxSeconds >= reconnectDelayMinSeconds,
              reconnectDelayMaxSeconds <= 86_400 else {
            throw .invalidConfiguration("reconnect delays must satisfy 1 ≤ min ≤ max ≤ 86400 seconds")
        }
        guard (1...65535).contains(maxInflightMessages) else {
            throw .invalidConfiguration("maxInflightMessages must be 1…65535, not \(maxInflightMessages)")
        }
        guard maxQueuedMessages >= 1 else {
            throw .invalidConfiguration("maxQueuedMessages must be at least 1, not \(maxQueuedMessages)")
        }
        if let will {
            try MQTTTopic.validateForPublish(will.topic)
            try will.properties.validate()
        }
        if let maximumIncomingPacketBytes, !(16...268_435_460).contains(maximumIncomingPacketBytes) {
            throw .invalidConfiguration("maximumIncomingPacketBytes must be 16…268435460, not \(maximumIncomingPacketBytes)")
        }
        if (certFile == nil) != (keyFile == nil) {
            throw .invalidConfiguration("cert_file and key_file must be given together")
        }
        if !broker.useTLS, caFile != nil || certFile != nil {
            throw .invalidConfiguration("ca_file/cert_file/key_file need an mqtts:// URL, not \(broker)")
        }
        for (role, path) in [("CA file", caFile), ("certificate file", certFile), ("key file", keyFile)] {
            if let path, access(path, R_OK) != 0 {
                throw .fileNotReadable(role: role, path: path)
            }
        }
    }

    public var description: String {
        var parts = ["url: \(broker)"]
        if let clientID { parts.append("client_id: \(clientID)") }
        if let username { parts.append("username: \(username)") }
        if password != nil { parts.append("password: <redacted>") }
        if let caFile { parts.append("ca_file: \(caFile)") }
        if let certFile { parts.append("cert_file: \(certFile)") }
        if let keyFile { parts.append("key_file: \(keyFile)") }
        parts.append("keepalive: \(keepaliveSeconds)s")
        return "MQTTConfiguration(\(parts.joined(separator: ", ")))"
    }

    /// `dump()` and debuggers use the mirror; it shows everything but the password.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "broker": broker, "clientID": clientID as Any, "username": username as Any,
            "password": password == nil ? "nil" : "<redacted>", "caFile": caFile as Any,
            "certFile": certFile as Any, "keyFile": keyFile as Any, "keepaliveSeconds": keepaliveSeconds,
            "protocolVersion": protocolVersion, "will": will as Any,
            "reconnectDelayMinSeconds": reconnectDelayMinSeconds, "reconnectDelayMaxSeconds": reconnectDelayMaxSeconds,
            "maxInflightMessages": maxInflightMessages, "maxQueuedMessages": maxQueuedMessages,
            "willDelaySeconds": willDelaySeconds, "maximumIncomingPacketBytes": maximumIncomingPacketBytes as Any,
        ])
    }
}
