/// The state of a peer's ranging link as consumers see it (`link` in the `state` payload).
public enum LinkState: String, Hashable, Sendable, CaseIterable {
    /// Configured (or seen) but no valid measurement yet.
    case connecting
    /// Valid measurements arriving.
    case ranging
    /// No valid measurement for `signal_lost_after`, or the session or device went away.
    case lost
}

/// Why a link was lost: `reason.cause` of `signal_lost` and of the events that clear a lost peer's rules.
public enum LossCause: String, Hashable, Sendable, CaseIterable {
    /// Nothing arrived for `signal_lost_after`.
    case timeout
    /// Measurements kept arriving but none was valid (status not ok, or no distance).
    case measurementErrors = "measurement_errors"
    /// The ranging session stopped (reported by the device link).
    case sessionStopped = "session_stopped"
    /// The device disappeared (reported by the device link).
    case deviceAbsent = "device_absent"
}
