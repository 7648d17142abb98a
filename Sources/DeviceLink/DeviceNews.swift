import UCI

/// What a notification means when the host did not cause it: the device went into ERROR, reset
/// itself, or ended a session. The one reading of such notifications: `DeviceSession` applies it
/// to what no command of its own explains, and `replay` to a recording, which holds what the
/// device sent but not the host's commands.
public enum DeviceNews: Equatable, Sendable {
    /// DEVICE_STATUS_NTF(ERROR): every session is lost and the device takes nothing but a reset.
    case deviceError
    /// DEVICE_STATUS_NTF(READY) while a session ranges: the device reset itself.
    case selfReset
    /// SESSION_STATUS_NTF(IDLE or DEINIT): the device stopped or dropped a session, for `reason`.
    case sessionEnded(handle: UInt32, state: SessionState, reason: ReasonCode)

    /// nil for a notification that is no such news (ranging data, other states, errors of a
    /// command). `ranging`: a session of the host's ranges, so READY can only be a reset.
    public init?(_ notification: UCINotification, ranging: Bool) {
        switch notification {
        case .coreDeviceStatus(.error): self = .deviceError
        case .coreDeviceStatus(.ready) where ranging: self = .selfReset
        case let .sessionStatus(handle, state, reason) where state == .idle || state == .deinitialized:
            self = .sessionEnded(handle: handle, state: state, reason: reason)
        default: return nil
        }
    }

    /// Whether the session with `handle` stopped ranging with it (its peers' links are lost,
    /// cause `session_stopped`).
    public func endsSession(_ handle: UInt32?) -> Bool {
        switch self {
        case .deviceError, .selfReset: true
        case let .sessionEnded(ended, _, _): ended == handle
        }
    }
}
