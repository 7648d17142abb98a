import Vocabulary
import Proximity
import UCI

/// The proximity engine's outputs as the payloads of mqtt-api.md: `state`, `feedback`,
/// `position`, `event`, `ranking/<rule>`. Times become RFC 3339; rule attributes and cues keep
/// the file's key order; unknown values are `null`.
enum ProximityPayloads {
    /// Distances and coordinates to the millimetre: more digits would only be filter noise.
    static func number(_ value: Double?) -> JSONValue { value.map { .double(millimetres($0)) } ?? .null }
    static func millimetres(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
    static func ts(_ seconds: Double) -> JSONValue { .string(Timestamp.rfc3339(seconds)) }

    static func state(_ s: PeerState) -> [JSONMember] {
        [JSONMember("ts", ts(s.ts)), JSONMember("peer", .string(s.peer.displayName)), JSONMember("link", .string(s.link.rawValue)),
         JSONMember("distance_m", number(s.distanceM)),
         JSONMember("direction", .string(s.directionAvailable ? "available" : "unavailable")),
         JSONMember("azimuth_deg", s.directionAvailable ? number(s.azimuthDeg) : .null),
         JSONMember("elevation_deg", s.directionAvailable ? number(s.elevationDeg) : .null),
         JSONMember("zones", .list(s.zones.map(JSONValue.string))), JSONMember("stage", s.stage.map(JSONValue.string) ?? .null),
         JSONMember("approaches", .object(s.approaches.map {
             JSONMember($0.rule, .object([JSONMember("phase", .string($0.phase.rawValue)), JSONMember("progress", .double($0.progress))]))
         })),
         JSONMember("facing", s.facing.map(JSONValue.bool) ?? .null)]
    }

    /// `timestamps` renders `f.ts`: sent with every measurement, it shares the time of the `range` before it.
    static func feedback(_ f: Feedback, timestamps: inout TimestampMemo) -> [JSONMember] {
        [JSONMember("ts", .string(timestamps.rfc3339(f.ts))), JSONMember("peer", .string(f.peer.displayName)), JSONMember("stage", f.stage.map(JSONValue.string) ?? .null),
         JSONMember("attributes", f.attributes), JSONMember("progress", .double(f.progress)),
         JSONMember("facing", f.facing.map(JSONValue.bool) ?? .null), JSONMember("cue", f.cue ?? .null)]
    }

    static func position(_ p: Position) -> [JSONMember] {
        [JSONMember("ts", ts(p.ts)), JSONMember("peer", .string(p.peer.displayName)), JSONMember("frame", .string(p.frame.rawValue)),
         JSONMember("x", number(p.x)), JSONMember("y", number(p.y)), JSONMember("z", number(p.z)), JSONMember("accuracy_m", number(p.accuracyM))]
    }

    static func event(_ e: ProximityEvent, id: String) -> [JSONMember] {
        [JSONMember("id", .string(id)), JSONMember("ts", ts(e.ts)), JSONMember("peer", .string(e.peer.displayName)),
         JSONMember("type", .string(e.type.rawValue)), JSONMember("rule", e.rule.map(JSONValue.string) ?? .null),
         JSONMember("from", e.from), JSONMember("to", e.to), JSONMember("distance_m", number(e.distanceM)),
         JSONMember("reason", e.reason.value(timestamp: { .string(Timestamp.rfc3339($0)) })),
         JSONMember("cue", e.cue ?? .null)]
    }

    static func ranking(_ r: Ranking) -> [JSONMember] {
        [JSONMember("ts", ts(r.ts)), JSONMember("rule", .string(r.rule)),
         JSONMember("peers", .list(r.peers.map {
             .object([JSONMember("peer", .string($0.peer.displayName)), JSONMember("score", .double($0.score)),
                      JSONMember("distance_m", number($0.distanceM)), JSONMember("facing", $0.facing.map(JSONValue.bool) ?? .null)])
         }))]
    }
}
