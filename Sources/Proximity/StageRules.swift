import Vocabulary

/// Ordered guidance bands, far to near (`stages:` in the rules file), with a hysteresis.
///
/// Every distance falls in exactly one band: the first band has no upper bound, the last no lower
/// bound. A stage changes only once the distance has passed the boundary by ``hysteresis`` metres
/// (default 0), so that a person standing on a boundary does not make the guidance flicker.
/// Validation: at least one band; every band but the last has `beyond`, the last has none; `beyond`
/// strictly decreases from far to near; names are unique.
public struct StageRules: Hashable, Sendable {
    public var hysteresis: Double
    public var bands: [StageBand]

    /// The band a distance falls in with no history: the first whose lower bound it is beyond
    /// (a distance exactly on a boundary belongs to the nearer band, as zones count "at or below").
    public func band(at distance: Double) -> Int {
        for (i, band) in bands.enumerated() {
            guard let lower = band.beyond else { return i }
            if distance > lower { return i }
        }
        return bands.count - 1
    }

    /// The band after a measurement, given the current one: move one boundary at a time, and only past
    /// boundaries the distance has cleared by the hysteresis.
    public func band(at distance: Double, from current: Int?) -> Int {
        guard let current, bands.indices.contains(current) else { return band(at: distance) }
        var i = current
        while i + 1 < bands.count, let lower = bands[i].beyond, distance <= lower - hysteresis { i += 1 }
        if i != current { return i }
        while i > 0, let upper = bands[i - 1].beyond, distance > upper + hysteresis { i -= 1 }
        return i
    }

    /// The band's bounds (outer, inner) in metres: outer nil for the first band, inner 0 for the last.
    public func bounds(of index: Int) -> (outer: Double?, inner: Double) {
        (index > 0 ? bands[index - 1].beyond : nil, bands[index].beyond ?? 0)
    }
}

extension StageRules: Decodable {
    enum CodingKeys: String, CodingKey { case hysteresis, bands }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        hysteresis = try c.decodeIfPresent(Distance.self, forKey: .hysteresis)?.meters ?? 0
        let bands: Located<[StageBand]> = try RulesDecoding.list(c, .bands, atMost: RulesBounds.stageBands, of: "bands")
        guard !bands.value.isEmpty else { throw SourceError(at: bands.mark, "bands must list at least one band") }
        let noMark = Located<Int>.unknownMark
        for (i, band) in bands.value.enumerated() {
            let isLast = i == bands.value.count - 1
            if isLast, band.beyond != nil {
                throw SourceError(at: band.beyondMark ?? noMark,
                                "the last band \(Excerpt.quoted(band.name)) is the nearest and has no lower bound; remove beyond")
            }
            if !isLast, band.beyond == nil {
                throw SourceError(at: band.mark ?? noMark,
                                "band \(Excerpt.quoted(band.name)) needs beyond (only the last, nearest band has no lower bound)",
                                kind: .missingKey)
            }
            if i > 0, !isLast, let previous = bands.value[i - 1].beyond, let beyond = band.beyond, beyond >= previous {
                throw SourceError(at: band.beyondMark ?? noMark,
                                "beyond (\(Distance(meters: beyond))) must be less than the previous band's beyond (\(Distance(meters: previous))): bands go from far to near")
            }
        }
        try RulesDecoding.requireUnique(bands.value.map { Located($0.name, at: $0.nameMark ?? noMark) }, kind: "band")
        self.bands = bands.value
    }
}

// MARK: - The kind

extension EventType {
    public static let stageChange = EventType(rawValue: "stage_change")
}

extension StageRules: RuleKind {
    public static let key = "stages"
    public static let noun = "stage"
    public static let events: [EventDeclaration] = [EventDeclaration(.stageChange, .changes)]

    /// A band's lower bound, for every peer (stages apply to all).
    public static func thresholds(in rules: Rules) -> [RuleDistance] {
        (rules.stages?.bands ?? []).compactMap { band in
            band.beyond.map { RuleDistance(rule: band.name, kind: "stage", metres: $0, peers: PeerPattern.all) }
        }
    }

    public static func bands(in rules: Rules) -> [RuleBand] {
        guard let stages = rules.stages else { return [] }
        return stages.bands.compactMap { band in
            band.beyond.map { RuleBand(name: "stage \(band.name) from", low: $0, high: $0 + stages.hysteresis, peers: PeerPattern.all) }
        }
    }

    public static let schema = #"""
    "stages": {
      "description": "Ordered guidance bands, far to near; the last band has no lower bound.",
      "type": "object",
      "additionalProperties": false,
      "required": ["bands"],
      "properties": {
        "hysteresis": {
          "description": "Metres a distance must pass a boundary by before the stage changes.",
          "allOf": [{"$ref": "#/definitions/distance"}],
          "default": 0
        },
        "bands": {
          "description": "Far to near, at most 16. Every band but the last needs beyond (decreasing); the last, nearest band has none.",
          "type": "array",
          "minItems": 1,
          "maxItems": 16,
          "items": {
            "type": "object",
            "additionalProperties": false,
            "required": ["name"],
            "properties": {
              "name": {"$ref": "#/definitions/name"},
              "beyond": {"description": "The band's lower bound: in this band while beyond it (and within the previous band's).", "allOf": [{"$ref": "#/definitions/distance"}]},
              "attributes": {
                "description": "Free-form attributes published in feedback while a peer is in this band; at most 1024 bytes as JSON.",
                "type": "object",
                "properties": {
                  "facing_tolerance_deg": {
                    "description": "Used by facing.tolerance_deg: stage. Degrees, more than 0 and at most 180.",
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "maximum": 180
                  }
                }
              }
            }
          }
        }
      }
    }
    """#
}
