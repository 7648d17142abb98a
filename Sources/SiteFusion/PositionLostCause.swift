/// Why a peer's position was lost: the `cause` of `position_lost`.
public enum PositionLostCause: String, Hashable, Sendable {
    /// No range of the peer arrived from any usable gateway.
    case timeout
    /// Ranges arrived, but never from enough usable gateways within one window.
    case tooFewGateways = "too_few_gateways"
    /// Enough gateways, but their layout cannot determine the position.
    case degenerateGeometry = "degenerate_geometry"
    /// Enough gateways, but their ranges disagree beyond noise and outlier rejection (an unflagged
    /// NLoS range among too few others to single it out).
    case inconsistentRanges = "inconsistent_ranges"
    /// Enough gateways, but the fit failed (no convergence, invalid input).
    case noFix = "no_fix"
}
