/// What the tracker asks the service to publish, in order.
public enum FusionOutput: Hashable, Sendable {
    case position(SiteFix)
    /// Emitted when a discrete field changes (position available or not, zones, gateways in range);
    /// the service may also republish ``FusionTracker/state(of:)`` at its own interval.
    case state(SitePeerState)
    case event(SiteEvent)
}
