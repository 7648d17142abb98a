import UCI

/// A ranging session opened on request beside the configured one (a phone's), as the device
/// session keeps it: its configuration, the handle the device gave it, and how far it got.
struct RequestedSession: Hashable, Sendable {
    var configuration: RangingSessionConfiguration
    var handle: UInt32?
    /// From SESSION_START until the session is known to have stopped.
    var mayBeActive = false
    /// START succeeded and nothing stopped it since: its rounds are reported.
    var ranging = false
    /// Why it is being closed, for the news once it is.
    var closing: String?
    /// Asked for again, under the same session id, while it was closing (a phone whose app
    /// chose its session id asked again): opened once the close is done.
    var reopening: RangingSessionConfiguration?

    var sessionID: UInt32 { configuration.sessionID }
}

/// What happens to a requested session, as the device session tells its owner.
public enum RequestedSessionNews: Hashable, Sendable {
    /// SESSION_START succeeded: the session ranges.
    case ranging
    /// Peers were added or removed without a restart (SESSION_UPDATE_CONTROLLER_MULTICAST_LIST).
    case updated
    /// Opening it, or changing its peers, failed; the message names the command and the status.
    case failed(String)
    /// It ended: closed on request, stopped by the device, or lost with a reset or an unplug.
    case closed(String)
}
