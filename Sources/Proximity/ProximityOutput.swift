/// One thing the engine wants published. Each engine call returns them in a fixed order: per peer its
/// events, then its state (when a discrete field changed), feedback and position; rankings last.
public enum ProximityOutput: Hashable, Sendable {
    case state(PeerState)
    case feedback(Feedback)
    case event(ProximityEvent)
    case position(Position)
    case ranking(Ranking)
}
