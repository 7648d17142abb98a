/// A polygon zone of the site, from the fuse's config: the fuse publishes which zones a tag is in,
/// not where they are, so the outline comes from the same file the fuse runs with.
public struct SiteZone: Sendable, Equatable {
    public var name: String
    public var polygon: [MapPoint]

    public init(name: String, polygon: [MapPoint]) {
        self.name = name
        self.polygon = polygon
    }
}
