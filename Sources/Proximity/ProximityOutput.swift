/// One thing the engine wants published. Each engine call returns them in a fixed order: per peer its
/// events, then its state (when a discrete field changed), feedback and position, then its state
/// again when ``ProximityEngine/stateRepeatInterval`` has passed without one; rankings last.
///
/// An output is as large as its largest case, and is copied into and out of the outputs array at
/// that size. The cases a measurement nearly always gives (feedback, position) are held inline;
/// the rare, large ones (a state, an event, a ranking) in a box of their own.
public enum ProximityOutput: Hashable, Sendable {
    indirect case state(PeerState)
    case feedback(Feedback)
    indirect case event(ProximityEvent)
    case position(Position)
    indirect case ranking(Ranking)
}
