import Vocabulary
import Proximity
import UCI

/// Everything the agent writes about one peer address that depends only on the configuration:
/// payload name, identity for the rules, MAC notation and the topics of its leaves. Worked out once
/// per address instead of sanitising and concatenating topic strings for every measurement.
final class PeerRoute: Sendable {
    let identity: PeerIdentity
    /// The `peer` and `mac` (`m.macAddress.description`) members of its `range` payloads.
    let rangePeer: RenderedMembers
    /// The `peer` member of its `feedback` and `position` payloads.
    let peer: RenderedMembers
    let range: String
    let state: String
    let feedback: String
    let position: String
    let event: String

    init(address: MacAddress, directory: PeerDirectory, topics: TopicTree) {
        let (name, segment) = directory.names(of: address)
        identity = directory.identity(of: address)
        rangePeer = Payloads.rangePeer(name: name, mac: address.description)
        peer = ProximityPayloads.peer(identity)
        range = topics.peer(segment, .peerRange)
        state = topics.peer(segment, .peerState)
        feedback = topics.peer(segment, .peerFeedback)
        position = topics.peer(segment, .peerPosition)
        event = topics.peer(segment, .peerEvent)
    }
}

/// The agent's memo of ``PeerRoute`` by address. It belongs to one peer list: the agent builds a new
/// one when SIGHUP changes the configured peers, so a renamed peer never keeps its old topics.
struct PeerRoutes {
    let directory: PeerDirectory
    let topics: TopicTree
    private var routes = AddressMap<PeerRoute>()
    /// Unconfigured addresses seen on air also get a route; past this many the memo starts over
    /// rather than grow without bound.
    static let limit = 1024

    init(directory: PeerDirectory, topics: TopicTree) {
        self.directory = directory
        self.topics = topics
    }

    mutating func route(for address: MacAddress) -> PeerRoute {
        if let route = routes[address] { return route }
        if routes.count >= Self.limit { routes.removeAll(keepingCapacity: true) }
        let route = PeerRoute(address: address, directory: directory, topics: topics)
        routes[address] = route
        return route
    }
}
