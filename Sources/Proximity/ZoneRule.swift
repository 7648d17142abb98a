import Vocabulary

/// A presence area around the gateway: a peer is inside at or below ``enterWithin`` and outside again
/// only beyond ``exitBeyond``, and either change must hold for ``dwell`` seconds before it counts.
///
/// Two thresholds and a dwell because UWB distances are noisy (± 5–10 cm) and people hover at
/// boundaries: a single threshold flaps. `enter_within` and `exit_beyond` are required, `exit_beyond`
/// strictly greater; `peers` defaults to every peer, `dwell` to 0 (fire on the crossing measurement).
public struct ZoneRule: Hashable, Sendable {
    public var name: String
    public var peers: [PeerPattern]
    public var enterWithin: Double
    public var exitBeyond: Double
    /// Seconds.
    public var dwell: Double
    /// Where the rule is written, for warnings; nil for rules built in code.
    public var mark: SourceMark?
    var nameMark: SourceMark?

    public init(name: String, peers: [PeerPattern] = PeerPattern.all, enterWithin: Double, exitBeyond: Double,
                dwell: Double = 0, mark: SourceMark? = nil) {
        self.name = name
        self.peers = peers
        self.enterWithin = enterWithin
        self.exitBeyond = exitBeyond
        self.dwell = dwell
        self.mark = mark
    }
}

extension ZoneRule: Decodable {
    enum CodingKeys: String, CodingKey {
        case name, peers, enterWithin = "enter_within", exitBeyond = "exit_beyond", dwell
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mark = SourceLocating.mark(of: decoder)
        (name, nameMark) = try RulesDecoding.name(c, .name)
        peers = try decodePeers(c, .peers)
        let enter = try c.decode(Located<Distance>.self, forKey: .enterWithin)
        let exit = try c.decode(Located<Distance>.self, forKey: .exitBeyond)
        guard exit.value > enter.value else {
            throw SourceError(at: exit.mark, "exit_beyond (\(exit.value)) must be greater than enter_within (\(enter.value))")
        }
        enterWithin = enter.value.meters
        exitBeyond = exit.value.meters
        dwell = try c.decodeIfPresent(TimeSpan.self, forKey: .dwell)?.seconds ?? 0
    }
}

// MARK: - The kind

extension EventType {
    public static let zoneEnter = EventType(rawValue: "zone_enter")
    public static let zoneExit = EventType(rawValue: "zone_exit")
}

extension ZoneRule: RuleKind {
    public static let key = "zones"
    public static let noun = "zone"
    public static let events: [EventDeclaration] = [
        EventDeclaration(.zoneEnter, .begins),
        EventDeclaration(.zoneExit, .ends),
    ]

    public static func thresholds(in rules: Rules) -> [RuleDistance] {
        rules.zones.flatMap { zone in
            [RuleDistance(rule: zone.name, kind: "enter", metres: zone.enterWithin, peers: zone.peers),
             RuleDistance(rule: zone.name, kind: "exit", metres: zone.exitBeyond, peers: zone.peers)]
        }
    }

    public static func bands(in rules: Rules) -> [RuleBand] {
        rules.zones.map { RuleBand(name: "zone \($0.name)", low: $0.enterWithin, high: $0.exitBeyond, peers: $0.peers) }
    }

    public static let schema = #"""
    "zones": {
      "description": "Presence areas with hysteresis and debounce; at most 64.",
      "type": "array",
      "maxItems": 64,
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "enter_within", "exit_beyond"],
        "properties": {
          "name": {"$ref": "#/definitions/name"},
          "peers": {"$ref": "#/definitions/peers"},
          "enter_within": {"description": "Inside when the filtered distance is at or below this …", "allOf": [{"$ref": "#/definitions/distance"}]},
          "exit_beyond": {"description": "… and outside again only beyond this (greater than enter_within).", "allOf": [{"$ref": "#/definitions/distance"}]},
          "dwell": {"description": "A change must hold this long before the event fires.", "allOf": [{"$ref": "#/definitions/duration"}], "default": 0}
        }
      }
    }
    """#
}
