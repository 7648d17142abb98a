import Vocabulary

/// Continuous guidance for one peer, sent with every valid measurement while the peer is in a stage,
/// an active approach or a facing rule: the `feedback` payload.
public struct Feedback: Hashable, Sendable {
    public var ts: Double
    public var peer: PeerIdentity
    public var stage: String?
    /// The current stage band's attributes; an empty object without a stage.
    public var attributes: RenderedJSON
    /// 0…1: closeness within the approach that is ready (the first in rule order; 1 once completed),
    /// else within the current stage band (0 at its outer bound, 1 at its inner bound; always 0 in
    /// the outermost band, which has no outer bound).
    public var progress: Double
    public var facing: Bool?
    /// Who measured the direction that facing was judged from; nil without one.
    public var directionSource: DirectionSource?
    /// The `holding` cue while facing, else nil.
    public var cue: JSONValue?
}
