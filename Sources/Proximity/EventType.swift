/// The `type` of an event, exactly as spec/mqtt-api.md names it.
public enum EventType: String, Hashable, Sendable, CaseIterable {
    case zoneEnter = "zone_enter"
    case zoneExit = "zone_exit"
    case stageChange = "stage_change"
    case approachReady = "approach_ready"
    case approachCompleted = "approach_completed"
    case approachCanceled = "approach_canceled"
    case facingGained = "facing_gained"
    case facingLost = "facing_lost"
    case signalLost = "signal_lost"
    case signalRegained = "signal_regained"
    case directionAvailable = "direction_available"
    case directionUnavailable = "direction_unavailable"
}
