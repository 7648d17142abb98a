/// The newest range of one peer from each gateway, and the set of them that belong together.
///
/// Gateways range independently, so their measurements of a moving tag never share a timestamp.
/// Ranges within `window` of each other are treated as one instant: the window ends at the newest
/// range, and each gateway contributes its newest range inside it. Older ones are stale (the tag
/// has moved since) and are left out rather than pulling the fix back.
public struct RangeWindow: Hashable, Sendable {
    public private(set) var newest: [String: GatewayRange] = [:]

    public init() {}

    /// The time of the newest range from any gateway, or nil before the first.
    public var latestTime: Double? { newest.values.map(\.time).max() }

    /// Keeps `range` if it is the newest from its gateway (a late, older one is ignored).
    public mutating func insert(_ range: GatewayRange) {
        if let current = newest[range.gateway], current.time > range.time { return }
        newest[range.gateway] = range
    }

    /// The ranges, one per gateway, with times in [end − window, end], ordered by gateway id so that
    /// the solver sees them in a stable order.
    public func combined(endingAt end: Double, window: Double) -> [GatewayRange] {
        newest.values
            .filter { $0.time <= end && end - $0.time <= window + 1e-9 }
            .sorted { $0.gateway < $1.gateway }
    }

    /// The ranges in the window that ends at the newest range.
    public func combined(window: Double) -> [GatewayRange] {
        guard let end = latestTime else { return [] }
        return combined(endingAt: end, window: window)
    }
}
