import Vocabulary

/// The `mqtt` section of the fuse config: the subset of the agent's `mqtt` keys that a service
/// that only subscribes and publishes live data needs (no spool, no Home Assistant, no per-topic
/// QoS), with the agent's defaults.
public struct FuseMQTTSettings: Hashable, Sendable, Decodable {
    public var url = "mqtt://127.0.0.1:1883"
    public var baseTopic = "uwb2mqtt"
    public var clientID: String?
    public var username: String?
    public var passwordFile: String?
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    public var keepalive = TimeSpan(seconds: 30)

    enum CodingKeys: String, CodingKey {
        case url, username, keepalive
        case baseTopic = "base_topic", clientID = "client_id", passwordFile = "password_file", caFile = "ca_file"
        case certFile = "cert_file", keyFile = "key_file"
    }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decodeIfPresent(String.self, forKey: .url) ?? url
        baseTopic = try c.decodeIfPresent(String.self, forKey: .baseTopic) ?? baseTopic
        clientID = try c.decodeIfPresent(String.self, forKey: .clientID)
        username = try c.decodeIfPresent(String.self, forKey: .username)
        passwordFile = try c.decodeIfPresent(String.self, forKey: .passwordFile)
        caFile = try c.decodeIfPresent(String.self, forKey: .caFile)
        certFile = try c.decodeIfPresent(String.self, forKey: .certFile)
        keyFile = try c.decodeIfPresent(String.self, forKey: .keyFile)
        keepalive = try c.decodeIfPresent(TimeSpan.self, forKey: .keepalive) ?? keepalive
    }

    /// The same rules as the agent's `mqtt` section.
    func problems() -> [FuseConfigurationError.Problem] {
        var problems: [FuseConfigurationError.Problem] = []
        if !(url.hasPrefix("mqtt://") || url.hasPrefix("mqtts://")) || url.hasSuffix("://") {
            problems.append(.init(path: "mqtt.url", message: "must start with mqtt:// or mqtts:// and name a host, found \"\(url)\""))
        }
        if baseTopic.isEmpty || baseTopic.contains("+") || baseTopic.contains("#") || baseTopic.hasPrefix("/") || baseTopic.hasSuffix("/") {
            problems.append(.init(path: "mqtt.base_topic",
                                  message: "must be a topic without wildcards or leading/trailing '/', found \"\(baseTopic)\""))
        }
        if (certFile == nil) != (keyFile == nil) {
            problems.append(.init(path: certFile == nil ? "mqtt.key_file" : "mqtt.cert_file", message: "cert_file and key_file go together"))
        }
        if !(keepalive.seconds >= 5 && keepalive.seconds <= 65535) {
            problems.append(.init(path: "mqtt.keepalive", message: "must be between 5s and 65535s, found \(keepalive)"))
        }
        if let clientID, clientID.isEmpty {
            problems.append(.init(path: "mqtt.client_id", message: "must not be empty when given"))
        }
        return problems
    }
}
