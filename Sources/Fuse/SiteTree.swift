import Vocabulary

extension TopicParameter {
    public static let site = TopicParameter("site", "the fuse's site (its config's site), lower-cased and sanitized", examples: ["lobby"])
    public static let shard = TopicParameter("shard", "the shard's index, when the site is split between fuse processes", examples: ["0"])
    public static let sitePeer = TopicParameter("peer", "the peer's name as the gateways' range payloads carry it, lower-cased and sanitized",
                                                examples: ["phone-anna"])
}

/// The fuse's tree, `<base>/site/<site>/…`: the topics `FuseCore` publishes to are rendered from
/// these, and the AsyncAPI document (`uwb2mqtt schema api`) lists them.
extension ChannelDeclaration {
    package static var fuseChannels: [ChannelDeclaration] { [siteStatus, siteShardStatus, sitePosition, siteState, siteEvent] }

    /// What the fuse reads of every gateway's tree: the agent's channels by id (`status`,
    /// `peerRange`), with `<gw>` a wildcard.
    package static let fuseReads = ["status", "peerRange"]

    private static func site(_ id: String, _ leaf: [Level], summary: String, retained: Bool, qos: Int, live: Bool = false,
                             payload: JSONSchema) -> ChannelDeclaration {
        ChannelDeclaration(id, service: "fuse", [.parameter(.base), .literal("site"), .parameter(.site)] + leaf, summary: summary,
                           retained: retained, qos: qos, live: live, payload: payload)
    }

    public static let siteStatus = site(
        "siteStatus", [.literal("status")],
        summary: "The fuse instance that holds the site, and the site's zones; the last will of an instance says it left.",
        retained: true, qos: 1, payload: FuseCore.statusSchema)
    public static let siteShardStatus = site(
        "siteShardStatus", [.literal("shard"), .parameter(.shard), .literal("status")],
        summary: "As status, for one of the fuse processes that split the site's tags (shard: {index, count}); each shard's "
            + "stand-by instance takes over through it.",
        retained: true, qos: 1, payload: FuseCore.statusSchema)
    public static let sitePosition = site(
        "sitePosition", [.literal("peer"), .parameter(.sitePeer), .literal("position")],
        summary: "Every fix of the peer in the site frame, from the ranges of at least 3 gateways (4 without tag_height).",
        retained: false, qos: 0, live: true, payload: FuseCore.positionFields.schema)
    public static let siteState = site(
        "siteState", [.literal("peer"), .parameter(.sitePeer), .literal("state")],
        summary: "The peer's site state: its last fix, its zones. Cleared (an empty retained message) once the peer is forgotten.",
        retained: true, qos: 1, payload: FuseCore.stateFields.schema)
    public static let siteEvent = site(
        "siteEvent", [.literal("peer"), .parameter(.sitePeer), .literal("event")],
        summary: "The peer entered or left a site zone, or lost or regained its position.",
        retained: false, qos: 1, payload: FuseCore.eventFields.schema)
}
