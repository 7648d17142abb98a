/// Where a peer is in an approach-to-confirm rule.
///
/// `idle` → `ready` (inside `start_within`) → `completed` (inside `confirm_within`, once) → `idle` again
/// only after leaving beyond `start_within`. A `ready` peer that retreats beyond `cancel_beyond` is
/// canceled and goes back to `idle`; "canceled" is an event, not a phase.
public enum ApproachPhase: String, Hashable, Sendable, CaseIterable {
    case idle
    case ready
    case completed
}
