/// One peer's distance smoothing, as the rules' `filter.kind` selects it.
///
/// Kept per peer by the engine; ``ProximityEngine/replaceRules(_:at:)`` keeps it when the kind and
/// `max_speed` stay the same and otherwise starts the new filter from the current estimate.
public enum DistanceFilter: Hashable, Sendable {
    case kalman(KalmanDistanceFilter)
    case oneEuro(OneEuroDistanceFilter)
    /// Raw distances.
    case none

    public init(_ settings: FilterSettings) {
        switch settings.kind {
        case .kalman: self = .kalman(KalmanDistanceFilter(maxSpeed: settings.maxSpeed))
        case .oneEuro: self = .oneEuro(OneEuroDistanceFilter(maxSpeed: settings.maxSpeed))
        case .none: self = .none
        }
    }

    /// Feeds one valid measurement and returns the distance rules should use (never negative).
    public mutating func update(_ meters: Double, at time: Double, nonLineOfSight: Bool = false) -> Double {
        switch self {
        case .kalman(var f):
            let out = f.update(meters, at: time, nonLineOfSight: nonLineOfSight)
            self = .kalman(f)
            return out
        case .oneEuro(var f):
            let out = f.update(meters, at: time)
            self = .oneEuro(f)
            return out
        case .none:
            return max(0, meters)
        }
    }

    /// A one-sigma distance uncertainty for position accuracy: the Kalman filter's own, else the
    /// nominal line-of-sight noise.
    var standardDeviation: Double {
        if case .kalman(let f) = self, let s = f.standardDeviation { return s }
        return 0.08
    }

    /// Whether this filter is what `settings` would create (so it can be kept across a rules reload).
    func matches(_ settings: FilterSettings) -> Bool {
        switch (self, settings.kind) {
        case (.kalman(let f), .kalman): return f.gate?.maxSpeed == settings.maxSpeed
        case (.oneEuro(let f), .oneEuro): return f.gate?.maxSpeed == settings.maxSpeed
        case (.none, .none): return true
        default: return false
        }
    }
}
