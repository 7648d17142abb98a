import Vocabulary

/// What ``FuseCore`` asks the service to do, in order: the core decides, the service only
/// publishes and writes lines.
public enum FuseAction: Equatable, Sendable {
    /// A message to publish at QoS `qos` (0 or 1). An empty retained payload clears the topic.
    case publish(topic: String, payload: [UInt8], qos: Int, retain: Bool)
    /// A line for the log.
    case log(LogLevel, String)
}
