/// One peer's distance smoothing, as the rules' `filter.kind` selects it.
///
/// Kept per peer by the engine; ``ProximityEngine/replaceRules(_:at:)`` keeps it when the kind and
/// `max_speed` stay the same and otherwise starts the new filter from the current estimate.
public struct DistanceFilter: Hashable, Sendable {
    /// The filter of the kind selected, the other nil; both nil for raw distances. Each changes
    /// in place at every measurement, where an enum's payload (137 bytes for the Kalman filter)
    /// would be copied out of it and back.
    private var kalman: KalmanDistanceFilter?
    private var oneEuro: OneEuroDistanceFilter?

    public init(_ settings: FilterSettings) {
        switch settings.kind {
        case .kalman: kalman = KalmanDistanceFilter(maxSpeed: settings.maxSpeed)
        case .oneEuro: oneEuro = OneEuroDistanceFilter(maxSpeed: settings.maxSpeed)
        case .none: break
        }
    }

    /// Feeds one valid measurement and returns the distance rules should use (never negative).
    public mutating func update(_ meters: Double, at time: Double, nonLineOfSight: Bool = false) -> Double {
        if kalman != nil { return kalman!.update(meters, at: time, nonLineOfSight: nonLineOfSight) }
        if oneEuro != nil { return oneEuro!.update(meters, at: time) }
        return max(0, meters)
    }

    /// A one-sigma distance uncertainty for position accuracy: the Kalman filter's own, else the
    /// nominal line-of-sight noise.
    var standardDeviation: Double {
        kalman?.standardDeviation ?? 0.08
    }

    /// Whether this filter is what `settings` would create (so it can be kept across a rules reload).
    func matches(_ settings: FilterSettings) -> Bool {
        switch settings.kind {
        case .kalman: kalman.map { $0.gate?.maxSpeed == settings.maxSpeed } ?? false
        case .oneEuro: oneEuro.map { $0.gate?.maxSpeed == settings.maxSpeed } ?? false
        case .none: kalman == nil && oneEuro == nil
        }
    }
}
