/// How to reach the MQTT broker, as the agent's and the fuse's config files both write it in
/// their `mqtt` section: `url`, `base_topic`, `client_id`, `username`, `password_file`,
/// `ca_file`, `cert_file`, `key_file`, `keepalive`, `protocol`, `message_expiry`, `will_delay`. Decoded and checked once for both; a problem
/// is a `DecodingError` at the key it concerns, which `YAMLDecoder` reports as
/// `file:line:column: message`. A section's other keys are its owner's to decode from the same
/// decoder.
public struct BrokerSettings: Hashable, Sendable {
    public var url = "mqtt://127.0.0.1:1883"
    public var baseTopic = "uwb2mqtt"
    public var clientID: String?
    public var username: String?
    public var passwordFile: String?
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    public var keepalive = TimeSpan(seconds: 30)
    /// MQTT 5 unless the config says 3.1.1; a broker that refuses 5 gets 3.1.1 anyway.
    public var protocolVersion = BrokerProtocol.mqtt5
    /// MQTT 5: live data (range, feedback, position, metrics) expires this long after it was
    /// published, for subscribers the broker queued it for; 0 never.
    public var messageExpiry = TimeSpan(seconds: 5)
    /// MQTT 5: the broker publishes the will (`status` offline) only this long after the
    /// connection was lost, and not at all when the client is back sooner (a restart); 0 at once.
    public var willDelay = TimeSpan(seconds: 10)

    /// The longest message expiry and will delay: a day.
    public static let maximumDelaySeconds = 86_400.0

    /// The longest `base_topic`: below it, a topic of 64-character names is within 512 bytes.
    public static let maximumBaseTopicBytes = 256

    public init() {}

    enum CodingKeys: String, CodingKey {
        case url, username, keepalive
        case protocolVersion = "protocol"
        case baseTopic = "base_topic", clientID = "client_id", passwordFile = "password_file", caFile = "ca_file"
        case certFile = "cert_file", keyFile = "key_file"
        case messageExpiry = "message_expiry", willDelay = "will_delay"
    }
}

extension BrokerSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func problem(_ key: CodingKeys, _ message: String) -> DecodingError {
            .dataCorrupted(.init(codingPath: decoder.codingPath + [key], debugDescription: "mqtt.\(key.stringValue) " + message))
        }
        url = try c.decodeIfPresent(String.self, forKey: .url) ?? url
        guard url.hasPrefix("mqtt://") || url.hasPrefix("mqtts://"), !url.hasSuffix("://") else {
            throw problem(.url, "must start with mqtt:// or mqtts:// and name a host, found \(Excerpt.quoted(url))")
        }
        clientID = try c.decodeIfPresent(String.self, forKey: .clientID)
        if let clientID, clientID.isEmpty { throw problem(.clientID, "must not be empty when given") }
        username = try c.decodeIfPresent(String.self, forKey: .username)
        passwordFile = try c.decodeIfPresent(String.self, forKey: .passwordFile)
        caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
        certFile = try c.decodeIfPresent(String.self, forKey: .certFile)
        keyFile = try c.decodeIfPresent(String.self, forKey: .keyFile)
        if (certFile == nil) != (keyFile == nil) {
            throw problem(certFile == nil ? .keyFile : .certFile, "and mqtt.\(certFile == nil ? "cert_file" : "key_file") go together")
        }
        baseTopic = try c.decodeIfPresent(String.self, forKey: .baseTopic) ?? baseTopic
        guard !baseTopic.isEmpty, !baseTopic.contains("+"), !baseTopic.contains("#"), !baseTopic.hasPrefix("/"), !baseTopic.hasSuffix("/") else {
            throw problem(.baseTopic, "must be a topic without wildcards or leading/trailing '/', found \(Excerpt.quoted(baseTopic))")
        }
        guard baseTopic.utf8.count <= Self.maximumBaseTopicBytes else {
            throw problem(.baseTopic, "is at most \(Self.maximumBaseTopicBytes) bytes, found \(baseTopic.utf8.count)")
        }
        if c.contains(.protocolVersion) {
            let text = (try? c.decode(String.self, forKey: .protocolVersion)) ?? (try? c.decode(Int.self, forKey: .protocolVersion)).map(String.init)
            guard let text, let version = BrokerProtocol(rawValue: text) else {
                throw problem(.protocolVersion, "is 5 or \"3.1.1\"")
            }
            protocolVersion = version
        }
        keepalive = try c.decodeIfPresent(TimeSpan.self, forKey: .keepalive) ?? keepalive
        guard keepalive.seconds >= 5, keepalive.seconds <= 65535 else {
            throw problem(.keepalive, "must be between 5s and 65535s, found \(keepalive)")
        }
        messageExpiry = try c.decodeIfPresent(TimeSpan.self, forKey: .messageExpiry) ?? messageExpiry
        willDelay = try c.decodeIfPresent(TimeSpan.self, forKey: .willDelay) ?? willDelay
        for (key, span) in [(CodingKeys.messageExpiry, messageExpiry), (.willDelay, willDelay)]
        where span.seconds < 0 || span.seconds > Self.maximumDelaySeconds || span.seconds != span.seconds.rounded() {
            throw problem(key, "is whole seconds from 0s to 1d (86400s), found \(span)")
        }
    }
}

/// The MQTT version a client asks the broker for (`mqtt.protocol`).
public enum BrokerProtocol: String, Hashable, Sendable {
    case mqtt5 = "5"
    case mqtt311 = "3.1.1"
}
