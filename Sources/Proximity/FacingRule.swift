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
