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
        [JSONMember(.ts, ts(s.ts)), JSONMember(.peer, .string(s.peer.displayName)), JSONMember(.link, .string(s.link.rawValue)),
         JSONMember(.distanceM, number(s.distanceM)),
         JSONMember(.direction, .string(s.directionAvailable ? "available" : "unavailable")),
         JSONMember(.directionSource, s.directionSource.map { .string($0.rawValue) } ?? .null),
         JSONMember(.azimuthDeg, s.directionAvailable ? number(s.azimuthDeg) : .null),
         JSONMember(.elevationDeg, s.directionAvailable ? number(s.elevationDeg) : .null)]
            + s.rules  // each rule kind's members (zones, stage, approaches, facing), as the kind wrote them
    }

    /// `feedback`, with every measurement in a stage: written member by member into `json`.
    /// `ts` is the text of `f.ts` (the time of the `range` before it).
    static func feedback(_ f: Feedback, ts: String, into json: inout JSONBytes) {
        json.beginObject()
        json.member(.ts); json.appendString(ts)
        json.member(.peer); json.appendString(f.peer.displayName)
        json.member(.stage); json.appendString(f.stage)
        json.member(.attributes); json.append(f.attributes)
        json.member(.progress); json.appendNumber(f.progress)
        json.member(.facing); json.appendBool(f.facing)
        json.member(.directionSource); json.appendString(f.directionSource?.rawValue)
        json.member(.cue); json.append(f.cue ?? .null)
        json.endObject()
    }

    /// `position`, with every measurement that has an angle on a gateway with a position: written
    /// member by member; `ts` is the text of `p.ts`.
    static func position(_ p: Position, ts: String, into json: inout JSONBytes) {
        json.beginObject()
        json.member(.ts); json.appendString(ts)
        json.member(.peer); json.appendString(p.peer.displayName)
        json.member(.frame); json.appendString(p.frame.rawValue)
        json.member(.x); json.appendNumber(millimetres(p.x))
        json.member(.y); json.appendNumber(millimetres(p.y))
        json.member(.z); json.appendNumber(millimetres(p.z))
        json.member(.accuracyM); json.appendNumber(millimetres(p.accuracyM))
        json.endObject()
    }

    static func event(_ e: ProximityEvent, id: String) -> [JSONMember] {
        [JSONMember(.id, .string(id)), JSONMember(.ts, ts(e.ts)), JSONMember(.peer, .string(e.peer.displayName)),
         JSONMember(.type, .string(e.type.rawValue)), JSONMember(.rule, e.rule.map(JSONValue.string) ?? .null),
         JSONMember(.from, e.from), JSONMember(.to, e.to), JSONMember(.distanceM, number(e.distanceM)),
         JSONMember(.reason, e.reason.value(timestamp: { .string(Timestamp.rfc3339($0)) })),
         JSONMember(.cue, e.cue ?? .null)]
    }

    /// `ranking/<rule>`: after every round that changes an order, so written member by member;
    /// `ts` is the text of `r.ts`.
    static func ranking(_ r: Ranking, ts: String, into json: inout JSONBytes) {
        json.beginObject()
        json.member(.ts); json.appendString(ts)
        json.member(.rule); json.appendString(r.rule)
        json.member(.peers); json.beginList()
        for entry in r.peers {
            json.listItem()
            json.beginObject()
            json.member(.peer); json.appendString(entry.peer.displayName)
            json.member(.score); json.appendNumber(entry.score)
            json.member(.distanceM); json.appendNumber(millimetres(entry.distanceM))
            json.member(.facing); json.appendBool(entry.facing)
            json.endObject()
        }
        json.endList()
        json.endObject()
    }
}
