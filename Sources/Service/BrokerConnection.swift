import Vocabulary
import MQTTClient

/// The broker settings the agent, `fuse` and `watch` share, turned into a client configuration: the URL,
/// the credentials (the password read once from its file; a world-readable file is a warning),
/// TLS files, keepalive, the protocol version, the last will (with the contract's properties and
/// `will_delay`) and the largest packet the client takes.
package struct BrokerConnection {
    var broker: BrokerSettings
    /// The configured `client_id` or the caller's default.
    var clientID: String
    /// Nil for a client that publishes nothing (`watch`).
    var will: MQTTWill?
    /// The largest packet the client takes (MQTT 5 tells the broker; see
    /// `MQTTConfiguration.maximumIncomingPacketBytes`).
    var maximumIncomingPacketBytes: Int?

    package init(broker: BrokerSettings, clientID: String, will: MQTTWill?, maximumIncomingPacketBytes: Int? = nil) {
        self.broker = broker
        self.clientID = clientID
        self.will = will
        self.maximumIncomingPacketBytes = maximumIncomingPacketBytes
    }

    package func configuration(logger: Logger) throws -> MQTTConfiguration {
        var settings = try MQTTConfiguration(url: broker.url, clientID: clientID)
        settings.username = broker.username
        if let passwordFile = broker.passwordFile {
            let (password, warning) = try PasswordFile.read(path: passwordFile)
            settings.password = password
            if let warning { logger.warning(warning) }
        }
        settings.caFile = broker.caFile
        settings.certFile = broker.certFile
        settings.keyFile = broker.keyFile
        settings.keepaliveSeconds = Int(broker.keepalive.seconds)
        settings.protocolVersion = broker.protocolVersion == .mqtt5 ? .v5 : .v311
        settings.will = will.map { will in
            var will = will
            will.properties = ContractProperties.will
            return will
        }
        settings.willDelaySeconds = UInt32(broker.willDelay.seconds)
        settings.maximumIncomingPacketBytes = maximumIncomingPacketBytes
        return settings
    }
}
