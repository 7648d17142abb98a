/// What the tracker asks the service to publish, in order.
public enum FusionOutput: Hashable, Sendable {
    case position(SiteFix)
    /// Emitted when a discrete field changes (position available or not, zones, gateways in range);
    /// the service may also republish ``FusionTracker/state(of:)`` at its own interval.
    case state(SitePeerState)
    case event(SiteEvent)
    /// The peer was not seen for `forget_after` and is no longer tracked: its retained state is
    /// to be cleared. A range after this starts it afresh.
    case forgotten(String)
}
