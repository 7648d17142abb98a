import MQTTClient

/// The broker settings the agent, `fuse` and `watch` share, turned into a client configuration: the URL,
/// the credentials (the password read once from its file; a world-readable file is a warning),
/// TLS files, keepalive and the last will.
package struct BrokerConnection {
    var url: String
    var clientID: String
    var username: String?
    var passwordFile: String?
    var caFile: String?
    var certFile: String?
    var keyFile: String?
    var keepaliveSeconds: Double
    /// Nil for a client that publishes nothing (`watch`).
    var will: MQTTWill?

    package init(url: String, clientID: String, username: String?, passwordFile: String?, caFile: String?, certFile: String?,
                 keyFile: String?, keepaliveSeconds: Double, will: MQTTWill?) {
        self.url = url
        self.clientID = clientID
        self.username = username
        self.passwordFile = passwordFile
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.keepaliveSeconds = keepaliveSeconds
        self.will = will
    }

    package func configuration(logger: Logger) throws -> MQTTConfiguration {
        var settings = try MQTTConfiguration(url: url, clientID: clientID)
        settings.username = username
        if let passwordFile {
            let (password, warning) = try PasswordFile.read(path: passwordFile)
            settings.password = password
            if let warning { logger.warning(warning) }
        }
        settings.caFile = caFile
        settings.certFile = certFile
        settings.keyFile = keyFile
        settings.keepaliveSeconds = Int(keepaliveSeconds)
        settings.will = will
        return settings
    }
}
