/// What `watch --site NAME` knows of one site of `uwb2mqtt fuse` (mqtt-api.md, "Site positions"):
/// the fuse's status with the zones' outlines, each tag's position and zones from
/// `<base>/site/<site>/…` (or the outlines from the fuse's config). The gateways' positions are in their own headers, from their
/// retained `status`.
public struct SiteView: Sendable, Equatable {
    /// The `<site>` topic segment.
    public let name: String
    /// `online` or `offline`; nil until the fuse's retained status arrived.
    public var status: String?
    public var zones: [SiteZone]
    /// By topic segment.
    public var tags: [String: SiteTag] = [:]
    /// The newest message under the site that `watch` could not read, and how many there were.
    public var problem: String?
    public var problemCount = 0

    public init(name: String, zones: [SiteZone] = []) {
        self.name = name
        self.zones = zones
    }
}
