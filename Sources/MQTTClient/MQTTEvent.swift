/// What happened on the connection, in the order libmosquitto reported it.
///
/// Delivered to the client's `onEvent` handler on its event loop's thread, outside libmosquitto's
/// callbacks; the last one is `.disconnected(.requested)` from `disconnect()`.
public enum MQTTEvent: Sendable, Equatable {
    /// CONNACK accepted. After every reconnect the remembered subscriptions are sent again.
    case connected(sessionPresent: Bool)
    /// The connection ended or an attempt failed; see the reason. Reconnects follow unless `.requested`.
    case disconnected(MQTTDisconnectReason)
    /// A message on one of the subscriptions.
    case message(MQTTMessage)
    /// The broker acknowledged a QoS 1 (PUBACK) or QoS 2 (PUBCOMP) publish with this message id;
    /// it no longer counts against `maxQueuedMessages`.
    case published(messageID: Int)
    /// MQTT 5 only: the broker answered the publish with a failure reason code (≥ 0x80), e.g. not
    /// authorized by an ACL (0x87). The message is not delivered and will not be retried.
    case publishFailed(messageID: Int, topic: String, reasonCode: Int, reason: String)
    /// SUBACK for `topic`; `grantedQoS` is nil when the broker refused the subscription.
    case subscribed(topic: String, grantedQoS: MQTTQoS?)
}
