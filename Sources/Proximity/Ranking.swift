/// The ordered candidates of one ranking rule: the `ranking/<rule>` payload.
public struct Ranking: Hashable, Sendable {
    public var ts: Double
    public var rule: String
    /// Best first.
    public var peers: [Entry]

    public struct Entry: Hashable, Sendable {
        public var peer: PeerIdentity
        public var score: Double
        public var distanceM: Double
        public var facing: Bool?
    }
}
