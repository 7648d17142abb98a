import MQTTClient

/// The MQTT 5 properties of the contract's messages (docs/mqtt-api.md, "MQTT 5"): every message
/// says that it is JSON (Content Type `application/json`) and which version of the payload
/// schemas it follows (user property `schema_version`); live data also expires
/// (`mqtt.message_expiry`), so that a subscriber whose session queued it through an outage is
/// not handed distances that are long past. Events and retained state never expire. Made once
/// per client: each message then costs no property work of its own.
package struct ContractProperties {
    package static let contentType = "application/json"
    /// The version of the payload schemas (`uwb2mqtt schema api`): it changes with the contract.
    package static let schemaVersion = MQTTProperties.UserProperty("schema_version", "1")

    /// Range, feedback, position, metrics: expire after `mqtt.message_expiry`.
    package let live: PublishProperties
    /// Events, retained state, status, answers: never expire.
    package let lasting: PublishProperties

    /// What the will (`status` offline) carries.
    package static let will = MQTTProperties(contentType: contentType, userProperties: [schemaVersion])

    /// `liveExpirySeconds` 0: live data does not expire either.
    package init(liveExpirySeconds: UInt32) throws(MQTTError) {
        live = try PublishProperties(MQTTProperties(messageExpirySeconds: liveExpirySeconds > 0 ? liveExpirySeconds : nil,
                                                    contentType: Self.contentType, userProperties: [Self.schemaVersion]))
        lasting = try PublishProperties(Self.will)
    }

    /// An answer's properties: the lasting ones and the requester's correlation data.
    package func answer(correlationData: [UInt8]) throws(MQTTError) -> PublishProperties {
        var properties = lasting.properties
        properties.correlationData = correlationData
        return try PublishProperties(properties)
    }
}
