/// Measurement imperfections applied to every peer.
///
/// Real UWB distances jitter by ± 5–10 cm and rounds get lost now and then (proximity-ux.md);
/// the rules' hysteresis, dwell and filters exist for exactly that, so the simulator must
/// produce it, reproducibly, from the scenario seed.
public struct ScenarioNoise: Hashable, Sendable, Decodable {
    /// Standard deviation of the Gaussian distance noise, metres.
    public var sigma: Double
    /// Standard deviation of the Gaussian angle noise, degrees (only when angles are reported).
    public var angleSigma: Double
    /// Chance that any one measurement is lost (status RANGING_RX_TIMEOUT), 0…1.
    public var dropoutProbability: Double

    public init(sigma: Double = 0.05, angleSigma: Double = 3, dropoutProbability: Double = 0) {
        self.sigma = sigma
        self.angleSigma = angleSigma
        self.dropoutProbability = dropoutProbability
    }

    /// No noise at all: exact distances, for tests that compare numbers.
    public static let none = ScenarioNoise(sigma: 0, angleSigma: 0, dropoutProbability: 0)

    enum CodingKeys: String, CodingKey, CaseIterable {
        case sigma
        case angleSigma = "angle_sigma"
        case dropoutProbability = "dropout_probability"
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = ScenarioNoise()
        sigma = try c.decodeIfPresent(Double.self, forKey: .sigma) ?? defaults.sigma
        angleSigma = try c.decodeIfPresent(Double.self, forKey: .angleSigma) ?? defaults.angleSigma
        dropoutProbability = try c.decodeIfPresent(Double.self, forKey: .dropoutProbability) ?? defaults.dropoutProbability
    }
}
