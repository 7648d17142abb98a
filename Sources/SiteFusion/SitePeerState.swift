/// The retained site state of one peer: the `state` payload of `<base>/site/<site>/peer/<peer>/state`.
public struct SitePeerState: Hashable, Sendable {
    /// Seconds: the change (or position) this state reflects.
    public var ts: Double
    public var peer: String
    /// The last fix while the position counts as available; nil once `position_lost` fired (and
    /// before the first fix).
    public var position: SiteFix?
    /// Zones the peer is in, in configuration order.
    public var zones: [String]
    /// Usable gateways with a range of this peer in the newest window; 0 once no range arrived for
    /// `position_lost_after`.
    public var gatewaysInRange: Int
}
