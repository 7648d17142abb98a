import UCI
import Vocabulary

/// What the agent learns from its device, as the core takes it in: the link's state, the
/// device's identity, ranging rounds, sessions that stopped, news of a requested session, every
/// other frame, and what is worth a line in the log. The live link (`DeviceLinkService`), `replay`
/// and the fuzzers all say it with these values; ``DeviceIntake`` makes them from bytes.
public enum DeviceReport: Sendable {
    case stateChanged(DeviceLinkState, port: String)
    case deviceIdentified(DeviceInfo, capabilities: [ConfigTLV])
    /// A ranging round, with the wall-clock time it was received, the monotonic clock read
    /// with it (the pair dates it on the agent's time) and the message it came in (for
    /// recording). It stands for its frame too: one report per notification, not two.
    case measurements(SessionInfo, receivedAt: Double, monotonic: Double, raw: RawMessage)
    /// A session's peers stopped ranging: the device's reason code, nil when it gave none (see
    /// `DeviceSession.Action.sessionStopped`).
    case sessionStopped(ReasonCode?)
    /// What became of a session opened with `DeviceSession.Event.openSession`.
    case requestedSession(sessionID: UInt32, RequestedSessionNews)
    case log(LogLevel, String)
    /// Every other UCI message received, decoded or not (for recording and metrics).
    case frame(RawMessage, receivedAt: Double, valid: Bool)
}
