/// One ranging measurement of a peer by a gateway, as fuse receives it from a gateway's `range`
/// topic: only successful measurements with a distance are worth passing in.
public struct GatewayRange: Hashable, Sendable {
    /// The peer's name as payloads carry it (`peer`), the key fuse tracks positions under.
    public var peer: String
    /// The gateway id (the `<gw>` topic segment).
    public var gateway: String
    /// Metres: the range payload's `distance_m` (the agent's filtered distance) or `raw_distance_m`.
    public var distanceM: Double
    /// The range payload's `nlos` (null counts as false).
    public var nlos: Bool
    /// Seconds: when the fuse received the range, by its own clock. The payload's `ts` is only
    /// checked against that clock (`max_clock_skew`): a gateway's clock is not trusted to order
    /// ranges, since one running ahead would date its ranges past every other gateway's.
    public var time: Double

    public init(peer: String, gateway: String, distanceM: Double, nlos: Bool = false, time: Double) {
        self.peer = peer
        self.gateway = gateway
        self.distanceM = distanceM
        self.nlos = nlos
        self.time = time
    }
}
