import Vocabulary

/// How distances are smoothed before any rule sees them (`filter:` in the rules file).
///
/// Defaults: `kind: kalman`, `max_speed: 3` (m/s: brisk walking with margin; a faster jump is an
/// outlier, see ``JumpGate``). `max_speed` is ignored with `kind: none`.
public struct FilterSettings: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, Decodable, CaseIterable {
        /// Constant-velocity Kalman filter (``KalmanDistanceFilter``).
        case kalman
        /// One-Euro filter (``OneEuroDistanceFilter``).
        case oneEuro = "one_euro"
        /// Raw distances, no smoothing and no outlier gate.
        case none
    }

    public var kind: Kind
    /// Metres per second.
    public var maxSpeed: Double

    public init(kind: Kind = .kalman, maxSpeed: Double = 3) {
        self.kind = kind
        self.maxSpeed = maxSpeed
    }
}

extension FilterSettings: Decodable {
    enum CodingKeys: String, CodingKey { case kind, maxSpeed = "max_speed" }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decodeIfPresent(Kind.self, forKey: .kind) ?? .kalman
        maxSpeed = 3
        if let speed = try c.decodeIfPresent(Located<Double>.self, forKey: .maxSpeed) {
            guard speed.value > 0, speed.value.isFinite else {
                throw SourceError(at: speed.mark, "max_speed must be a number of metres per second greater than 0, found \(Distance.format(speed.value))")
            }
            maxSpeed = speed.value
        }
    }
}
