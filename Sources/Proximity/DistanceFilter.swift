/// One peer's distance smoothing, as the rules' `filter.kind` selects it.
///
/// Kept per peer by the engine; ``ProximityEngine/replaceRules(_:at:)`` keeps it when the kind and
/// `max_speed` stay the same and otherwise starts the new filter from the current estimate.
public struct DistanceFilter: Hashable, Sendable {
    /// The rules' `filter.kind`: which of the two filters is in use, if either.
    private let kind: FilterSettings.Kind
    /// Both filters are kept, the one of ``kind`` in use: each is a stored struct that changes in
    /// place at every measurement. As an optional or an enum's payload, the Kalman filter
    /// (137 bytes) was copied out and back three times per measurement.
    private var kalman: KalmanDistanceFilter
    private var oneEuro: OneEuroDistanceFilter

    public init(_ settings: FilterSettings) {
        kind = settings.kind
        kalman = KalmanDistanceFilter(maxSpeed: settings.maxSpeed)
        oneEuro = OneEuroDistanceFilter(maxSpeed: settings.maxSpeed)
    }

    /// Feeds one valid measurement and returns the distance rules should use (never negative).
    public mutating func update(_ meters: Double, at time: Double, nonLineOfSight: Bool = false) -> Double {
        switch kind {
        case .kalman: kalman.update(meters, at: time, nonLineOfSight: nonLineOfSight)
        case .oneEuro: oneEuro.update(meters, at: time)
        case .none: max(0, meters)
        }
    }

    /// A one-sigma distance uncertainty for position accuracy: the Kalman filter's own, else the
    /// nominal line-of-sight noise.
    var standardDeviation: Double {
        kind == .kalman ? kalman.standardDeviation ?? 0.08 : 0.08
    }

    /// Whether this filter is what `settings` would create (so it can be kept across a rules reload).
    func matches(_ settings: FilterSettings) -> Bool {
        guard settings.kind == kind else { return false }
        switch kind {
        case .kalman: return kalman.gate?.maxSpeed == settings.maxSpeed
        case .oneEuro: return oneEuro.gate?.maxSpeed == settings.maxSpeed
        case .none: return true
        }
    }
}
