import Proximity
import UCI

/// The proximity engine's outputs as the payloads of mqtt-api.md: `state`, `feedback`,
/// `position`, `event`, `ranking/<rule>`. Times become RFC 3339; rule attributes and cues keep
/// the file's key order; unknown values are `null`.
enum ProximityPayloads {
    static func value(_ rule: RuleValue) -> FieldValue {
        switch rule {
        case .null: .null
        case let .bool(b): .bool(b)
        case let .int(i): .int(Int64(i))
        case let .double(d): .double(d)
        case let .string(s): .string(s)
        case let .list(items): .list(items.map(value))
        case let .object(fields): .object(fields.map { Field($0.key, value($0.value)) })
        }
    }

    /// Distances and coordinates to the millimetre: more digits would only be filter noise.
    static func number(_ value: Double?) -> FieldValue { value.map { .double(millimetres($0)) } ?? .null }
    static func millimetres(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
    static func ts(_ seconds: Double) -> FieldValue { .string(Timestamp.rfc3339(seconds)) }

    static func state(_ s: PeerState) -> [Field] {
        [Field("ts", ts(s.ts)), Field("peer", .string(s.peer.displayName)), Field("link", .string(s.link.rawValue)),
         Field("distance_m", number(s.distanceM)),
         Field("direction", .string(s.directionAvailable ? "available" : "unavailable")),
         Field("azimuth_deg", s.directionAvailable ? number(s.azimuthDeg) : .null),
         Field("elevation_deg", s.directionAvailable ? number(s.elevationDeg) : .null),
         Field("zones", .list(s.zones.map(FieldValue.string))), Field("stage", s.stage.map(FieldValue.string) ?? .null),
         Field("approaches", .object(s.approaches.map {
             Field($0.rule, .object([Field("phase", .string($0.phase.rawValue)), Field("progress", .double($0.progress))]))
         })),
         Field("facing", s.facing.map(FieldValue.bool) ?? .null)]
    }

    /// `timestamps` renders `f.ts`: sent with every measurement, it shares the time of the `range` before it.
    static func feedback(_ f: Feedback, timestamps: inout TimestampMemo) -> [Field] {
        [Field("ts", .string(timestamps.rfc3339(f.ts))), Field("peer", .string(f.peer.displayName)), Field("stage", f.stage.map(FieldValue.string) ?? .null),
         Field("attributes", value(f.attributes)), Field("progress", .double(f.progress)),
         Field("facing", f.facing.map(FieldValue.bool) ?? .null), Field("cue", f.cue.map(value) ?? .null)]
    }

    static func position(_ p: Position) -> [Field] {
        [Field("ts", ts(p.ts)), Field("peer", .string(p.peer.displayName)), Field("frame", .string(p.frame.rawValue)),
         Field("x", number(p.x)), Field("y", number(p.y)), Field("z", number(p.z)), Field("accuracy_m", number(p.accuracyM))]
    }

    static func event(_ e: ProximityEvent, id: String) -> [Field] {
        [Field("id", .string(id)), Field("ts", ts(e.ts)), Field("peer", .string(e.peer.displayName)),
         Field("type", .string(e.type.rawValue)), Field("rule", e.rule.map(FieldValue.string) ?? .null),
         Field("from", value(e.from)), Field("to", value(e.to)), Field("distance_m", number(e.distanceM)),
         Field("reason", value(e.reason.value(timestamp: { .string(Timestamp.rfc3339($0)) }))),
         Field("cue", e.cue.map(value) ?? .null)]
    }

    static func ranking(_ r: Ranking) -> [Field] {
        [Field("ts", ts(r.ts)), Field("rule", .string(r.rule)),
         Field("peers", .list(r.peers.map {
             .object([Field("peer", .string($0.peer.displayName)), Field("score", .double($0.score)),
                      Field("distance_m", number($0.distanceM)), Field("facing", $0.facing.map(FieldValue.bool) ?? .null)])
         }))]
    }
}
