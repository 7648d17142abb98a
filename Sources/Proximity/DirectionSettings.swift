import Vocabulary

/// When an angle of arrival counts as a direction (`direction:` in the rules file).
///
/// Defaults: `min_fom: 50` (UCI figures of merit run 0…100; below half the device itself doubts the
/// angle), `max_age: 500ms` (two or three ranging rounds at the usual 200 ms interval: longer and a
/// walking person has turned enough that the arrow would lie).
public struct DirectionSettings: Hashable, Sendable {
    /// Lowest azimuth figure of merit (0…100) that makes an angle usable.
    public var minFOM: Int
    /// Seconds after which the last angle is unavailable.
    public var maxAge: Double

    public init(minFOM: Int = 50, maxAge: Double = 0.5) {
        self.minFOM = minFOM
        self.maxAge = maxAge
    }
}

extension DirectionSettings: Decodable {
    enum CodingKeys: String, CodingKey { case minFOM = "min_fom", maxAge = "max_age" }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        minFOM = 50
        if let fom = try c.decodeIfPresent(Located<Int>.self, forKey: .minFOM) {
            guard (0...100).contains(fom.value) else {
                throw SourceError(at: fom.mark, "min_fom must be between 0 and 100, found \(fom.value)")
            }
            minFOM = fom.value
        }
        maxAge = try c.decodeIfPresent(TimeSpan.self, forKey: .maxAge)?.seconds ?? 0.5
    }
}
