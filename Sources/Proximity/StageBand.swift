import Vocabulary

/// One guidance band of ``StageRules``: a peer is in it while its distance is beyond ``beyond`` and not
/// beyond the previous (farther) band's lower bound. The nearest band has no lower bound (nil).
///
/// ``attributes`` are for consumers (what to show at this distance); the engine reads only
/// `facing_tolerance_deg`, for `facing: {tolerance_deg: stage}`.
public struct StageBand: Hashable, Sendable {
    public var name: String
    /// The band's lower bound in metres; nil for the last (nearest) band.
    public var beyond: Double?
    /// A mapping (``JSONValue/object(_:)``), `{}` when not given; rendered once, for the
    /// feedback of every measurement in the band.
    public var attributes: RenderedJSON
    public var mark: SourceMark?
    var nameMark: SourceMark?
    var beyondMark: SourceMark?

    public init(name: String, beyond: Double?, attributes: JSONValue = .object([]), mark: SourceMark? = nil) {
        self.name = name
        self.beyond = beyond
        self.attributes = RenderedJSON(attributes)
        self.mark = mark
    }

    /// `attributes.facing_tolerance_deg` when it is a number.
    public var facingToleranceDegrees: Double? { attributes.value["facing_tolerance_deg"]?.number }
}

extension StageBand: Decodable {
    enum CodingKeys: String, CodingKey { case name, beyond, attributes }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mark = SourceLocating.mark(of: decoder)
        (name, nameMark) = try RulesDecoding.name(c, .name)
        let beyond = try c.decodeIfPresent(Located<Distance>.self, forKey: .beyond)
        self.beyond = beyond?.value.meters
        beyondMark = beyond?.mark
        if let attributes = try c.decodeIfPresent(Located<JSONValue>.self, forKey: .attributes) {
            guard attributes.value.isObject else {
                throw SourceError(at: attributes.mark, "attributes must be a mapping (key: value pairs)", kind: .typeMismatch)
            }
            try RulesDecoding.requireSmall(attributes.value, at: attributes.mark, "attributes")
            if let tolerance = attributes.value["facing_tolerance_deg"], !Self.isAngle(tolerance) {
                throw SourceError(at: attributes.mark, "facing_tolerance_deg must be a number of degrees between 0 and 180")
            }
            self.attributes = RenderedJSON(attributes.value)
        } else {
            attributes = RenderedJSON(.object([]))
        }
    }

    static func isAngle(_ value: JSONValue) -> Bool {
        guard let n = value.number else { return false }
        return n > 0 && n <= 180
    }
}
