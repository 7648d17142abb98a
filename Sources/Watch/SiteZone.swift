/// A polygon zone of the site: its outline as the fuse's retained status gives it, or as the
/// fuse's config file says (`--fuse-config`).
public struct SiteZone: Sendable, Equatable {
    public var name: String
    public var polygon: [MapPoint]

    public init(name: String, polygon: [MapPoint]) {
        self.name = name
        self.polygon = polygon
    }
}
