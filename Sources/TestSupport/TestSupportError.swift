/// Why a test fixture could not be set up or a condition was not met in time.
///
/// Fixture failures are errors, not traps, so that Swift Testing reports them as a failed test
/// with a readable reason and the other tests keep running.
public enum TestSupportError: Error, CustomStringConvertible, Sendable {
    case spawnFailed(executable: String, reason: String)
    case commandFailed(command: String, status: String, output: String)
    case system(call: String, errno: Int32)
    case timedOut(waitingFor: String, after: Duration, detail: String)
    case brokerDidNotStart(port: UInt16, log: String)
    /// A message broke the MQTT API's AsyncAPI document (`MQTTContract`).
    case contractViolation(String)

    public var description: String {
        switch self {
        case let .spawnFailed(executable, reason):
            return "cannot start \(executable): \(reason)"
        case let .commandFailed(command, status, output):
            return "\(command) \(status): \(output)"
        case let .system(call, errno):
            return "\(call) failed: errno \(errno)"
        case let .timedOut(what, after, detail):
            return "timed out after \(after) waiting for \(what)" + (detail.isEmpty ? "" : "; \(detail)")
        case let .brokerDidNotStart(port, log):
            return "mosquitto did not listen on 127.0.0.1:\(port); its log:\n\(log)"
        case let .contractViolation(problem):
            return "not as `uwb2mqtt schema api` says: \(problem)"
        }
    }
}
