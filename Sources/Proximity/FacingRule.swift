import Vocabulary

/// Whether a peer is in front of the gateway's antenna, with cues for the moments that matter
/// (`facing:` in the rules file). Applies to every peer; needs a valid azimuth, never guessed from
/// distance.
///
/// A peer faces when `|azimuth| ≤ tolerance`. The tolerance is a fixed number of degrees or, with
/// `tolerance_deg: stage`, the current stage band's `facing_tolerance_deg`, so that it narrows as the
/// peer comes closer (90° → 35° → 15°). Default: `stage` when the file has stages, else 30°.
public struct FacingRule: Hashable, Sendable {
    public enum Tolerance: Hashable, Sendable {
        case degrees(Double)
        /// The current stage band's `facing_tolerance_deg`.
        case stage
    }

    public var tolerance: Tolerance
    public var cues: FacingCues
    var toleranceMark: SourceMark?
    var toleranceGiven: Bool

    public init(tolerance: Tolerance, cues: FacingCues = FacingCues()) {
        self.tolerance = tolerance
        self.cues = cues
        toleranceGiven = true
    }
}

/// Cue attributes (sound, haptic, …) for consumers: ``gained`` goes with `facing_gained`, ``holding``
/// with feedback while facing, ``lost`` with `facing_lost`. Each a mapping, or nil for no cue.
public struct FacingCues: Hashable, Sendable {
    public var gained: JSONValue?
    public var holding: JSONValue?
    public var lost: JSONValue?

    public init(gained: JSONValue? = nil, holding: JSONValue? = nil, lost: JSONValue? = nil) {
        self.gained = gained
        self.holding = holding
        self.lost = lost
    }
}

extension FacingRule: Decodable {
    enum CodingKeys: String, CodingKey { case toleranceDeg = "tolerance_deg", cues }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        cues = try c.decodeIfPresent(FacingCues.self, forKey: .cues) ?? FacingCues()
        tolerance = .degrees(30)
        toleranceGiven = false
        if let value = try c.decodeIfPresent(Located<JSONValue>.self, forKey: .toleranceDeg) {
            toleranceMark = value.mark
            toleranceGiven = true
            if value.value == .string("stage") {
                tolerance = .stage
            } else if let n = value.value.number, StageBand.isAngle(value.value) {
                tolerance = .degrees(n)
            } else {
                throw SourceError(at: value.mark, "tolerance_deg must be a number of degrees between 0 and 180 or \"stage\", found \(RulesDecoding.found(value.value))")
            }
        }
    }
}

extension FacingCues: Decodable {
    enum CodingKeys: String, CodingKey { case gained, holding, lost }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func cue(_ key: CodingKeys) throws -> JSONValue? {
            guard let value = try c.decodeIfPresent(Located<JSONValue>.self, forKey: key) else { return nil }
            switch value.value {
            case .null: return nil
            case .object:
                try RulesDecoding.requireSmall(value.value, at: value.mark, "the \(key.rawValue) cue's attributes")
                return value.value
            default:
                throw SourceError(at: value.mark, "the \(key.rawValue) cue must be a mapping (key: value pairs) or null, found \(RulesDecoding.found(value.value))",
                                kind: .typeMismatch)
            }
        }
        gained = try cue(.gained)
        holding = try cue(.holding)
        lost = try cue(.lost)
    }
}

// MARK: - The kind

extension EventType {
    public static let facingGained = EventType(rawValue: "facing_gained")
    public static let facingLost = EventType(rawValue: "facing_lost")
}

extension FacingRule: RuleKind {
    public static let key = "facing"
    public static let noun = "facing"
    public static let events: [EventDeclaration] = [
        EventDeclaration(.facingGained, .begins),
        EventDeclaration(.facingLost, .ends),
    ]
    public static let noRules: FacingRule? = nil

    public static func decode(from file: KeyedDecodingContainer<RulesKey>) throws -> FacingRule? {
        try file.decodeIfPresent(FacingRule.self, forKey: RulesKey(key))
    }

    /// The tolerance's default, and `stage` checked, against the stages.
    public static func complete(_ section: inout FacingRule?, in rules: Rules) throws {
        guard var facing = section else { return }
        let stages = rules.stages
        let bandsWithTolerance = stages?.bands.allSatisfy { $0.facingToleranceDegrees != nil } ?? false
        if !facing.toleranceGiven {
            facing.tolerance = bandsWithTolerance ? .stage : .degrees(30)
        } else if facing.tolerance == .stage {
            let at = facing.toleranceMark ?? Located<Int>.unknownMark
            guard let stages else {
                throw SourceError(at: at, "tolerance_deg: stage needs a stages section whose bands set facing_tolerance_deg")
            }
            if let band = stages.bands.first(where: { $0.facingToleranceDegrees == nil }) {
                throw SourceError(at: band.mark ?? at, "band \(Excerpt.quoted(band.name)) needs attributes.facing_tolerance_deg, since facing.tolerance_deg is \"stage\"",
                                  kind: .missingKey)
            }
        }
        section = facing
    }

    public static func tracking(in rules: Rules, for peer: inout PeerTracker) -> FacingTracking {
        FacingTracking(rule: rules.facing, stages: rules.stages)
    }

    public static let schema = #"""
    "facing": {
      "description": "Facing the gateway; needs a valid azimuth, never evaluated from distance alone.",
      "type": "object",
      "additionalProperties": false,
      "properties": {
        "tolerance_deg": {
          "description": "Degrees (more than 0, at most 180), or \"stage\" for the current stage's facing_tolerance_deg. Default: stage when every band sets it, else 30.",
          "anyOf": [
            {"type": "number", "exclusiveMinimum": 0, "maximum": 180},
            {"const": "stage"}
          ]
        },
        "cues": {
          "description": "Free-form cue attributes attached to facing events and feedback.",
          "type": "object",
          "additionalProperties": false,
          "properties": {
            "gained": {"description": "Attached to the facing_gained event.", "allOf": [{"$ref": "#/definitions/cue"}]},
            "holding": {"description": "Attached to feedback while facing.", "allOf": [{"$ref": "#/definitions/cue"}]},
            "lost": {"description": "Attached to the facing_lost event.", "allOf": [{"$ref": "#/definitions/cue"}]}
          }
        }
      }
    }
    """#
}

extension Rules {
    public var facing: FacingRule? {
        get { self[FacingRule.self] }
        set { self[FacingRule.self] = newValue }
    }
}

extension PeerState {
    /// Whether the peer faces the gateway; nil when it cannot be evaluated (no facing rule, no
    /// direction, or no tolerance for the current stage).
    public var facing: Bool? {
        if case let .bool(facing)? = rule(.facing) { facing } else { nil }
    }
}

/// Facing as one peer lives it: judged from the peer's direction (never from distance) against
/// the tolerance, fixed or its stage band's; the peer's ``PeerTracker/facing``, which rankings'
/// facing bonus and `feedback` read.
public struct FacingTracking: RuleTracking {
    /// The rule as every peer judges it, shared: a tracking is one reference, which the peer's
    /// list of trackings holds without a box of its own.
    final class Judgement: Sendable {
        let tolerance: FacingRule.Tolerance?
        let cues: FacingCues
        /// Each stage band's `facing_tolerance_deg`, for `tolerance_deg: stage`.
        let stageTolerances: [Double?]

        init(rule: FacingRule?, stages: StageRules?) {
            tolerance = rule?.tolerance
            cues = rule?.cues ?? FacingCues()
            stageTolerances = stages?.bands.map(\.facingToleranceDegrees) ?? []
        }
    }
    let judgement: Judgement

    init(rule: FacingRule?, stages: StageRules?) {
        judgement = Judgement(rule: rule, stages: stages)
    }

    /// The tolerance in stage band `stage`; nil when facing cannot be evaluated.
    func tolerance(inStage stage: Int?) -> Double? {
        switch judgement.tolerance {
        case .degrees(let d)?: return d
        case .stage?:
            guard let stage, judgement.stageTolerances.indices.contains(stage) else { return nil }
            return judgement.stageTolerances[stage]
        case nil: return nil
        }
    }

    public mutating func evaluate(_ peer: inout PeerTracker, at time: Double, measured: Bool, into events: inout [ProximityEvent]) {
        guard measured else { return }
        update(&peer, at: time, into: &events)
    }

    public mutating func directionChanged(_ peer: inout PeerTracker, at time: Double, into events: inout [ProximityEvent]) {
        update(&peer, at: time, into: &events)
    }

    public mutating func lose(_ peer: inout PeerTracker, reason: EventReason, at time: Double, into events: inout [ProximityEvent]) {
        update(&peer, at: time, lossReason: reason, into: &events)
    }

    /// A new tolerance; the engine's evaluation after the reload judges facing with it.
    public func carriedOver(to rules: Rules, _ peer: inout PeerTracker, at time: Double,
                            into events: inout [ProximityEvent]) -> any RuleTracking {
        FacingTracking(rule: rules.facing, stages: rules.stages)
    }

    public static let stateProperties = [JSONSchema.Property(.facing, JSONSchema.boolean.orNull()
        .described("whether the peer faces the gateway; null when it cannot be judged (no facing rule, no direction)"))]

    /// `facing`.
    public func describe<Writer: PeerStateWriter>(_ peer: PeerTracker, into writer: inout Writer) {
        writer.member(.facing)
        writer.bool(peer.facing)
    }

    /// Judges facing from the current direction and stage, with `facing_gained` or `facing_lost`
    /// when it changes.
    private func update(_ peer: inout PeerTracker, at time: Double, lossReason: EventReason? = nil, into events: inout [ProximityEvent]) {
        var next: Bool? = nil
        var tolerance: Double? = nil
        if peer.link == .ranging, let bearing = peer.bearing, let t = self.tolerance(inStage: peer.stage) {
            tolerance = t
            next = bearing.faces(within: t)
        }
        let old = peer.facing
        peer.facing = next
        // Nearly every measurement: no change, nothing to build.
        guard next != old else { return }
        let from: JSONValue = old.map(JSONValue.bool) ?? .null
        let to: JSONValue = next.map(JSONValue.bool) ?? .null
        if next == true {
            events.append(peer.event(.facingGained, at: time, from: from, to: to,
                                     reason: EventReason(toleranceDeg: tolerance, azimuthDeg: peer.bearing?.azimuthDeg),
                                     cue: judgement.cues.gained))
        } else if old == true {
            let reason = next == false ? EventReason(toleranceDeg: tolerance, azimuthDeg: peer.bearing?.azimuthDeg)
                                       : lossReason ?? .because(.directionUnavailable)
            events.append(peer.event(.facingLost, at: time, from: from, to: to, reason: reason, cue: judgement.cues.lost))
        }
    }
}
