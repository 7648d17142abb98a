/// Who measured a peer's direction: the gateway's own device (an angle of arrival) or the phone
/// itself, which reports the angle at which it sees the gateway (`phone/<name>/report`). The
/// `direction_source` of `state`, `feedback` and the direction events.
public enum DirectionSource: String, Hashable, Sendable, CaseIterable {
    case gateway
    case phone
}
