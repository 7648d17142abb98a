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

    /// `state`, on every change of a discrete member: written member by member, the engine's
    /// members and then each rule kind's as the kind wrote them (zones, stage, approaches,
    /// facing). `ts` is the text of `s.ts`, `peer` the member of `s.peer` (``peer(_:)``).
    /// ``stateSchema`` declares what it writes.
    static func state(_ s: PeerState, ts: String, peer: RenderedMembers, into json: inout JSONBytes) {
        json.beginObject()
        json.member(.ts); json.appendPlainString(ts)
        json.append(peer)
        json.member(.link); json.appendPlainString(s.link.rawValue)
        json.member(.distanceM); json.appendNumber(s.distanceM.map(millimetres))
        json.member(.direction); json.appendPlainString(s.directionAvailable ? "available" : "unavailable")
        json.member(.directionSource); json.appendPlainString(s.directionSource?.rawValue)
        json.member(.azimuthDeg); json.appendNumber(s.directionAvailable ? s.azimuthDeg.map(millimetres) : nil)
        json.member(.elevationDeg); json.appendNumber(s.directionAvailable ? s.elevationDeg.map(millimetres) : nil)
        s.writeRules(into: &json)
        json.endObject()
    }

    /// `state` as a value, for an answer that lists peers: the bytes ``state(_:ts:peer:into:)``
    /// writes for the retained state, read back.
    static func stateValue(_ s: PeerState) -> JSONValue {
        var json = JSONBytes(capacity: 512)
        state(s, ts: Timestamp.rfc3339(s.ts), peer: peer(s.peer), into: &json)
        do {
            return try JSONReader.value(json.bytes)
        } catch {
            // The writer escapes every name and writes no non-finite number: never here.
            assertionFailure("a state payload does not read back: \(error)")
            return .null
        }
    }

    /// `state` as published: the engine's members, then each rule kind's in table order.
    package static var stateSchema: JSONSchema {
        .object([
            .init(.ts, .timestamp),
            .init(.peer, JSONSchema.string.described("the peer's name as configured, or its address")),
            .init(.link, .enumeration(LinkState.allCases.map(\.rawValue))),
            .init(.distanceM, JSONSchema.number.orNull().described("metres, filtered; null unless the link is ranging")),
            .init(.direction, .enumeration(["available", "unavailable"])),
            .init(.directionSource, directionSource),
            .init(.azimuthDeg, JSONSchema.number.orNull().described("degrees; null while the direction is unavailable")),
            .init(.elevationDeg, JSONSchema.number.orNull().described("degrees; null while the direction is unavailable")),
        ] + RuleKinds.stateProperties)
    }

    /// Who measured the direction, or null while it is unavailable.
    static let directionSource = JSONSchema.enumeration(DirectionSource.allCases.map(\.rawValue)).orNull()

    /// The `peer` member of `feedback` and `position`: the same for every payload of the peer, so
    /// its route renders it once (``PeerRoute/peer``).
    static func peer(_ identity: PeerIdentity) -> RenderedMembers {
        RenderedMembers { json in
            json.member(.peer); json.appendString(identity.displayName)
        }
    }

    /// `feedback`, with every measurement in a stage: written member by member into `json`.
    /// `ts` is the text of `f.ts` (the time of the `range` before it), `peer` the member of
    /// `f.peer` (``peer(_:)``). ``feedbackSchema`` declares what it writes.
    static func feedback(_ f: Feedback, ts: String, peer: RenderedMembers, into json: inout JSONBytes) {
        json.beginObject()
        json.member(.ts); json.appendPlainString(ts)
        json.append(peer)
        json.member(.stage); json.appendString(f.stage)
        json.member(.attributes); json.append(f.attributes)
        json.member(.progress); json.appendNumber(f.progress)
        if f.facing == nil && f.directionSource == nil && f.cue == nil {
            json.append(feedbackWithoutDirection)
        } else {
            json.member(.facing); json.appendBool(f.facing)
            json.member(.directionSource); json.appendPlainString(f.directionSource?.rawValue)
            json.member(.cue); json.append(f.cue ?? .null)
        }
        json.endObject()
    }

    /// A `feedback` payload's direction members without a direction (`facing`,
    /// `direction_source` and `cue` null), as the members one by one would write them: what
    /// most feedback carries on a device without angle of arrival.
    static let feedbackWithoutDirection = RenderedMembers { json in
        json.member(.facing); json.appendBool(nil)
        json.member(.directionSource); json.appendPlainString(nil)
        json.member(.cue); json.append(.null)
    }

    package static let feedbackSchema = JSONSchema.object([
        .init(.ts, .timestamp), .init(.peer, .string),
        .init(.stage, JSONSchema.string.orNull().described("the stage the peer is in")),
        .init(.attributes, JSONSchema.freeObject.described("the stage's attributes, as the rules file writes them")),
        .init(.progress, JSONSchema.number.minimum(0).maximum(1).described("closeness within the current stage or approach")),
        .init(.facing, JSONSchema.boolean.orNull()),
        .init(.directionSource, directionSource),
        .init(.cue, JSONSchema.freeObject.orNull().described("the facing rule's holding cue while the peer faces")),
    ])

    /// `position`, with every measurement that has an angle on a gateway with a position: written
    /// member by member; `ts` is the text of `p.ts`, `peer` the member of `p.peer` (``peer(_:)``).
    /// ``positionSchema`` declares what it writes.
    static func position(_ p: Position, ts: String, peer: RenderedMembers, into json: inout JSONBytes) {
        json.beginObject()
        json.member(.ts); json.appendPlainString(ts)
        json.append(peer)
        json.member(.frame); json.appendPlainString(p.frame.rawValue)
        json.member(.x); json.appendNumber(millimetres(p.x))
        json.member(.y); json.appendNumber(millimetres(p.y))
        json.member(.z); json.appendNumber(millimetres(p.z))
        json.member(.accuracyM); json.appendNumber(millimetres(p.accuracyM))
        json.endObject()
    }

    package static let positionSchema = JSONSchema.object([
        .init(.ts, .timestamp), .init(.peer, .string),
        .init(.frame, JSONSchema.enumeration(Position.Frame.allCases.map(\.rawValue))
                .described("gateway: metres from the antenna; site: the site frame of gateway.position")),
        .init(.x, JSONSchema.number.described("metres")), .init(.y, JSONSchema.number.described("metres")),
        .init(.z, JSONSchema.number.described("metres")), .init(.accuracyM, JSONSchema.number.minimum(0).described("metres")),
    ])

    static func event(_ e: ProximityEvent, id: String) -> [JSONMember] { eventFields.members(EventSource(event: e, id: id)) }

    struct EventSource {
        var event: ProximityEvent
        var id: String
    }

    static let eventFields = PayloadFields<EventSource>([
        .init(.id, JSONSchema.string.described("<gw>:<boot id>:<counter>: unique, and the same when the event is delivered again")) {
            .string($0.id)
        },
        .init(.ts, .timestamp) { ts($0.event.ts) },
        .init(.peer, .string) { .string($0.event.peer.displayName) },
        .init(.type, .enumeration(RuleKinds.events.map(\.type.rawValue))) { .string($0.event.type.rawValue) },
        .init(.rule, JSONSchema.string.orNull().described("the zone, approach or ranking; the stage's name is in to")) {
            $0.event.rule.map(JSONValue.string) ?? .null
        },
        .init(.from, JSONSchema([JSONMember("type", .list(["string", "boolean", "null"]))]).described("what changed, before")) { $0.event.from },
        .init(.to, JSONSchema([JSONMember("type", .list(["string", "boolean", "null"]))]).described("what changed, after")) { $0.event.to },
        .init(.distanceM, JSONSchema.number.orNull().described("metres, filtered")) { number($0.event.distanceM) },
        .init(.reason, EventReason.fields.schema) { $0.event.reason.value(timestamp: { .string(Timestamp.rfc3339($0)) }) },
        .init(.cue, JSONSchema.freeObject.orNull().described("the facing rule's cue of facing_gained and facing_lost")) { $0.event.cue ?? .null },
    ])

    /// `ranking/<rule>`: after every round that changes an order, so written member by member;
    /// `ts` is the text of `r.ts`. ``rankingSchema`` declares what it writes.
    static func ranking(_ r: Ranking, ts: String, into json: inout JSONBytes) {
        json.beginObject()
        json.member(.ts); json.appendPlainString(ts)
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

    package static let rankingSchema = JSONSchema.object([
        .init(.ts, .timestamp), .init(.rule, .string),
        .init(.peers, JSONSchema.list(of: .object([
            .init(.peer, .string), .init(.score, .number), .init(.distanceM, JSONSchema.number.described("metres, filtered")),
            .init(.facing, JSONSchema.boolean.orNull()),
        ])).described("best first")),
    ])
}
