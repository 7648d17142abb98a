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
    public static let noRules: StageRules? = nil

    public static func decode(from file: KeyedDecodingContainer<RulesKey>) throws -> StageRules? {
        try file.decodeIfPresent(StageRules.self, forKey: RulesKey(key))
    }

    public static func tracking(in rules: Rules, for peer: inout PeerTracker) -> StageTracking {
        StageTracking(stages: rules.stages)
    }

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

extension Rules {
    public var stages: StageRules? {
        get { self[StageRules.self] }
        set { self[StageRules.self] = newValue }
    }
}

extension PeerState {
    /// The name of the current stage band.
    public var stage: String? {
        if case let .string(name)? = rule(.stage) { name } else { nil }
    }
}

/// Stages as one peer lives them: the band it is in (the peer's ``PeerTracker/stage``, which
/// facing and `feedback` read), moved one boundary at a time with the hysteresis.
public struct StageTracking: RuleTracking {
    let stages: StageRules?

    public mutating func evaluate(_ peer: inout PeerTracker, at time: Double, measured: Bool, into events: inout [ProximityEvent]) {
        guard measured, let stages, let d = peer.distance else { return }
        move(&peer, to: stages.band(at: d, from: peer.stage), at: time, reason: nil, into: &events)
    }

    public mutating func lose(_ peer: inout PeerTracker, reason: EventReason, at time: Double, into events: inout [ProximityEvent]) {
        move(&peer, to: nil, at: time, reason: reason, into: &events)
    }

    /// The stage carries over by band name: a band that went or moved gives a `stage_change`
    /// from the old name to where the distance now falls.
    public func carriedOver(to rules: Rules, _ peer: inout PeerTracker, at time: Double,
                            into events: inout [ProximityEvent]) -> any RuleTracking {
        let next = StageTracking(stages: rules.stages)
        let oldName = name(of: peer.stage)
        peer.stage = oldName.flatMap { name in rules.stages?.bands.firstIndex { $0.name == name } }
        if peer.link == .ranging, let d = peer.distance {
            next.move(&peer, to: rules.stages.map { $0.band(at: d, from: peer.stage) }, at: time, reason: nil,
                      fromName: .some(oldName), into: &events)
        } else if oldName != nil {
            next.move(&peer, to: nil, at: time, reason: .because(.rulesChanged), fromName: .some(oldName), into: &events)
        }
        return next
    }

    public static let stateProperties = [JSONSchema.Property(.stage, JSONSchema.string.orNull().described("the stage band the peer is in"))]

    /// `stage`: the current band's name.
    public func describe<Writer: PeerStateWriter>(_ peer: PeerTracker, into writer: inout Writer) {
        writer.member(.stage)
        writer.string(name(of: peer.stage))
    }

    func name(of band: Int?) -> String? {
        band.flatMap { i in stages.flatMap { $0.bands.indices.contains(i) ? $0.bands[i].name : nil } }
    }

    /// Moves to band `next`, with its `stage_change`. `reason` overrides the crossed boundary;
    /// `fromName` the name moved from (a band of the rules before a reload).
    private func move(_ peer: inout PeerTracker, to next: Int?, at time: Double, reason: EventReason?,
                      fromName: String?? = nil, into events: inout [ProximityEvent]) {
        // Nearly every measurement: the same band as before, nothing to say or to look up.
        if fromName == nil, next == peer.stage { return }
        let bands = stages?.bands ?? []
        let oldName = fromName ?? name(of: peer.stage)
        let newName = next.map { bands[$0].name }
        let old = peer.stage
        peer.stage = next
        guard oldName != newName else { return }
        var why = reason ?? EventReason(crossedAt: time)
        if reason == nil, let old, let next, old != next {
            // The boundary last crossed: the nearer band's upper bound when moving in, the new band's
            // lower bound when moving out.
            why.thresholdM = next > old ? bands[next - 1].beyond : bands[next].beyond
        }
        events.append(peer.event(.stageChange, at: time, from: oldName.map(JSONValue.string) ?? .null,
                                 to: newName.map(JSONValue.string) ?? .null, reason: why))
    }
}
