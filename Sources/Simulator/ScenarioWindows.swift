/// Time windows in scenario seconds, `from` inclusive, `to` exclusive.
///
/// Each kind of window is its own small type so that the YAML says what it means: a peer is
/// `out_of_range`, in `nlos` with a bias, or in a `dropouts` burst with a probability.
public struct TimeWindow: Hashable, Sendable, Decodable {
    public var from: Double
    public var to: Double

    public init(from: Double, to: Double) {
        self.from = from
        self.to = to
    }

    public func contains(_ time: Double) -> Bool { time >= from && time < to }

    enum CodingKeys: String, CodingKey, CaseIterable { case from, to }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        from = try c.decode(Double.self, forKey: .from)
        to = try c.decode(Double.self, forKey: .to)
    }

    func validate(_ field: String) throws(ScenarioError) {
        guard from.isFinite else { throw .notFinite(field: field + ".from") }
        guard to.isFinite else { throw .notFinite(field: field + ".to") }
        guard to >= from else { throw .invalidWindow(field: field, from: from, to: to) }
    }
}

/// Non-line-of-sight: the path is blocked, so the first path arrives late and the distance reads
/// long by `bias` metres; the device flags NLoS = 1 and angles lose confidence.
public struct NLoSWindow: Hashable, Sendable, Decodable {
    public var window: TimeWindow
    /// Metres added to the true distance, ≥ 0.
    public var bias: Double

    public init(from: Double, to: Double, bias: Double) {
        window = TimeWindow(from: from, to: to)
        self.bias = bias
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case from, to, bias }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        window = TimeWindow(from: try c.decode(Double.self, forKey: .from), to: try c.decode(Double.self, forKey: .to))
        bias = try c.decodeIfPresent(Double.self, forKey: .bias) ?? 0.3
    }
}

/// A burst of lost rounds: while it lasts each measurement is lost with `probability`.
public struct DropoutWindow: Hashable, Sendable, Decodable {
    public var window: TimeWindow
    /// 0…1; 1 loses every round.
    public var probability: Double

    public init(from: Double, to: Double, probability: Double = 1) {
        window = TimeWindow(from: from, to: to)
        self.probability = probability
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case from, to, probability }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        window = TimeWindow(from: try c.decode(Double.self, forKey: .from), to: try c.decode(Double.self, forKey: .to))
        probability = try c.decodeIfPresent(Double.self, forKey: .probability) ?? 1
    }
}
