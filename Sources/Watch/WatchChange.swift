/// Something a person following the gateways should hear about: one line of `watch --plain`.
/// Measurements that only move a number (ranges, feedback, periodic state) are not changes.
public struct WatchChange: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case status(state: String, version: String?)
        /// The site's `status`: whether a fuse instance holds the site.
        case fuse(state: String)
        case device(state: String, firmware: String?, error: String?)
        case rules(ok: Bool, sha: String?, error: String?)
        /// A peer's first `state`.
        case peerSeen(PeerRow)
        /// An empty retained `state`: the peer left the gateway's config.
        case peerRemoved(peer: String)
        case event(WatchEvent)
        case ranking(rule: String, peers: [String])
        /// `metrics.dropped` grew to `total`.
        case dropped(total: Int)
        /// A message `watch` cannot read: malformed JSON, an unknown payload or topic.
        case note(topic: String, problem: String)
    }

    /// `HH:MM:SS` (UTC) of the payload's `ts`, or of its arrival when it has none.
    public var clock: String
    public var gateway: String
    public var kind: Kind
}
