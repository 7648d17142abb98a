/// What `watch --site` shows of one tag: its newest site position (from `position`, or the
/// retained `state`), how sure the fuse is of it, and the site zones it is in.
public struct SiteTag: Sendable, Equatable {
    /// The name as the payloads write it.
    public var name: String
    /// Nil when the fuse has no position for it (too few gateways in range).
    public var position: MapPoint?
    /// The fix's 1σ radius, metres.
    public var accuracy: Double?
    public var zones: [String] = []
    public var gatewaysInRange: Int?
    /// The `ts` of the newest position or state.
    public var updated: String?

    public init(name: String) {
        self.name = name
    }
}
