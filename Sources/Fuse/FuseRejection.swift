import Vocabulary
import Service

/// Why the fuse did not take a message from the network. Anyone on the broker can publish under
/// `<base>/`; what no honest gateway sends is refused here, counted by ``cause`` and said at most
/// once per cause per 10 s, and never reaches the tracker.
public enum FuseRejection: Equatable, Sendable, CustomStringConvertible {
    /// The payload is no JSON object, or one of its fields is of the wrong type, not finite or
    /// outside its bounds.
    case payload(PayloadRejection)
    /// A gateway's `position` without one of `x`, `y` and `z`.
    case incompletePosition
    /// A successful range without a `ts`.
    case missingTime
    /// A `ts` that is no RFC 3339 UTC time.
    case unreadableTime
    /// A `ts` further from this machine's clock than `max_clock_skew`: by `seconds`, positive
    /// ahead of it, negative behind.
    case clockSkew(seconds: Double, limit: TimeSpan)
    /// A successful range without a `peer`, or with one longer than a topic segment may be.
    case unusablePeer
    /// A range from a gateway that published no status: the fuse knows nothing of where it
    /// stands, and made-up gateway names must not grow each peer's window.
    case unknownGateway
    /// A range whose `peer` is not the tag its topic names.
    case peerNotTheTopics
    /// A status of a new gateway when the fuse knows `limit` already.
    case tooManyGateways(Int)
    /// A range of a new peer when the fuse tracks `limit` already.
    case tooManyPeers(Int)

    /// The same text for every message refused the same way: the key of the count and of the
    /// log throttle (a bounded set, whatever the network sends).
    public var cause: String {
        switch self {
        case let .payload(rejection): rejection.cause
        case .incompletePosition: "position incomplete"
        case .missingTime: "ts missing"
        case .unreadableTime: "ts not a time"
        case let .clockSkew(seconds, _): seconds > 0 ? "ts ahead of the clock" : "ts behind the clock"
        case .unusablePeer: "peer missing or too long"
        case .unknownGateway: "gateway without a status"
        case .peerNotTheTopics: "peer not the topic's"
        case .tooManyGateways: "too many gateways"
        case .tooManyPeers: "too many peers"
        }
    }

    public var description: String {
        switch self {
        case let .payload(rejection): "\(rejection)"
        case .incompletePosition: "its \"position\" lacks one of \"x\", \"y\" and \"z\""
        case .missingTime: "it has no \"ts\""
        case .unreadableTime: "its \"ts\" is not an RFC 3339 UTC time"
        case let .clockSkew(seconds, limit):
            "its \"ts\" is \(TimeSpan(seconds: abs(seconds))) \(seconds > 0 ? "ahead of" : "behind") this machine's clock "
                + "(max_clock_skew \(limit)): is the gateway's clock synchronised?"
        case .unusablePeer: "its \"peer\" is missing or longer than \(TopicSegment.maximumLength) characters"
        case .unknownGateway: "no status of that gateway has arrived"
        case .peerNotTheTopics: "its \"peer\" is not the tag its topic names"
        case let .tooManyGateways(limit): "the fuse knows \(limit) gateways already, the most it keeps"
        case let .tooManyPeers(limit): "the fuse tracks \(limit) peers already, the most it keeps; a peer is forgotten after forget_after without a range"
        }
    }
}
