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
    public internal(set) var nameMark: SourceMark?

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

extension ZoneRule: NamedRuleKind {
    public static let key = "zones"
    public static let noun = "zone"
    public static let maximumCount = RulesBounds.zones
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

    public static func tracking(in rules: Rules, for peer: inout PeerTracker) -> ZoneTracking {
        ZoneTracking(rules: rules.zones, identity: peer.identity)
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

extension Rules {
    public var zones: [ZoneRule] {
        get { self[ZoneRule.self] }
        set { self[ZoneRule.self] = newValue }
    }
}

extension PeerState {
    /// Names of the zones the peer is in, in rule order.
    public var zones: [String] {
        guard case let .list(names)? = rule(.zones) else { return [] }
        return names.compactMap { if case let .string(name) = $0 { name } else { nil } }
    }
}

/// Zones as one peer lives them: inside or outside each zone that selects it, and a change
/// pending its dwell. Evaluated on ticks too, so that a dwell completes without a measurement.
public struct ZoneTracking: RuleTracking {
    struct Track: Hashable, Sendable {
        var inside = false
        /// When the distance first crossed towards the other side; nil when no change is pending.
        var crossedAt: Double?
    }

    let rules: [ZoneRule]
    /// Parallel to ``rules``; nil where a rule's `peers` do not select the peer, so that no
    /// evaluation matches patterns again.
    var tracks: [Track?]

    init(rules: [ZoneRule], identity: PeerIdentity) {
        self.rules = rules
        tracks = rules.map { $0.peers.matches(identity) ? Track() : nil }
    }

    public mutating func evaluate(_ peer: inout PeerTracker, at time: Double, measured: Bool, into events: inout [ProximityEvent]) {
        guard let d = peer.distance else { return }
        // By index, each rule read where it is: `for rule in rules` would copy every rule (a
        // retain of each of its strings) at every measurement.
        for i in rules.indices {
            guard let before = tracks[i] else { continue }
            var track = before
            let changing = track.inside ? d > rules[i].exitBeyond : d <= rules[i].enterWithin
            if !changing {
                track.crossedAt = nil
            } else {
                let crossedAt = track.crossedAt ?? time
                if time - crossedAt >= rules[i].dwell - PeerTracker.timeSlack {
                    track.inside.toggle()
                    track.crossedAt = nil
                    events.append(peer.event(track.inside ? .zoneEnter : .zoneExit, at: time, rule: rules[i].name,
                                             from: track.inside ? "outside" : "inside", to: track.inside ? "inside" : "outside",
                                             reason: EventReason(thresholdM: track.inside ? rules[i].enterWithin : rules[i].exitBeyond,
                                                                 dwellMs: TimeSpan(seconds: rules[i].dwell).milliseconds,
                                                                 crossedAt: crossedAt)))
                } else {
                    track.crossedAt = crossedAt
                }
            }
            if track != before { tracks[i] = track }
        }
    }

    public mutating func lose(_ peer: inout PeerTracker, reason: EventReason, at time: Double, into events: inout [ProximityEvent]) {
        for (i, rule) in rules.enumerated() {
            guard var track = tracks[i] else { continue }
            track.crossedAt = nil
            if track.inside {
                track.inside = false
                events.append(peer.event(.zoneExit, at: time, rule: rule.name, from: "inside", to: "outside", reason: reason))
            }
            tracks[i] = track
        }
    }

    /// Membership carries over by zone name; a zone the peer was in that went (or no longer
    /// selects it) ends with its `zone_exit`.
    public func carriedOver(to rules: Rules, _ peer: inout PeerTracker, at time: Double,
                            into events: inout [ProximityEvent]) -> any RuleTracking {
        var next = ZoneTracking(rules: rules.zones, identity: peer.identity)
        for (i, rule) in self.rules.enumerated() {
            guard let track = tracks[i], track.inside else { continue }
            if let j = next.rules.firstIndex(where: { $0.name == rule.name }), next.tracks[j] != nil {
                next.tracks[j]?.inside = true
            } else {
                events.append(peer.event(.zoneExit, at: time, rule: rule.name, from: "inside", to: "outside",
                                         reason: .because(.rulesChanged)))
            }
        }
        return next
    }

    public var deadline: Double? {
        var earliest: Double?
        for (i, rule) in rules.enumerated() {
            if let crossedAt = tracks[i]?.crossedAt { earliest = min(earliest ?? .infinity, crossedAt + rule.dwell) }
        }
        return earliest
    }

    public static let stateProperties = [JSONSchema.Property(.zones, JSONSchema.list(of: .string).described("the zones the peer is in, in rule order"))]

    /// `zones`: the names of the zones the peer is in, in rule order.
    public func describe<Writer: PeerStateWriter>(_ peer: PeerTracker, into writer: inout Writer) {
        writer.member(.zones)
        writer.beginList()
        for i in rules.indices where tracks[i]?.inside == true { writer.string(rules[i].name) }
        writer.end()
    }
}
