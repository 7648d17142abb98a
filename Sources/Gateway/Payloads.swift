import Service
import Vocabulary
import DeviceLink
import UCI

/// The JSON payloads of the v1 topic tree (mqtt-api.md, "Payloads"), built as ordered fields so
/// that keys appear in the documented order and unknown values are an explicit `null`.
public enum Payloads {
    public static func render(_ fields: [JSONMember]) -> [UInt8] { FieldRendering.jsonBytes(fields) }

    static func number(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }
    static func int(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }
    static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// `status`: retained; the last will is `{"state":"offline"}` without ts.
    /// `ranging_interval_ms` (beyond mqtt-api.md) is the configured session's interval, so that
    /// `fuse` combines each gateway's every round without being told the interval.
    public static func status(online: Bool, ts: Double, position: SitePoint?, headingDegrees: Double?,
                              rangingInterval: TimeSpan? = nil) -> [JSONMember] {
        statusFields.members(StatusSource(online: online, ts: ts, position: position, headingDegrees: headingDegrees,
                                          rangingInterval: rangingInterval))
    }

    struct StatusSource {
        var online: Bool
        var ts: Double
        var position: SitePoint?
        var headingDegrees: Double?
        var rangingInterval: TimeSpan?
    }

    static let statusFields = PayloadFields<StatusSource>([
        .init(.state, .enumeration(["online", "offline"])) { .string($0.online ? "online" : "offline") },
        .init(.ts, .timestamp) { .string(Timestamp.rfc3339($0.ts)) },
        .init(.version, JSONSchema.string.described("the agent's version")) { _ in .string(AgentVersion.agent) },
        .init(.position, sitePoint.orNull().described("the gateway's configured position in the site frame, metres (gateway.position)")) {
            $0.position.map { .object([JSONMember(.x, .double($0.x)), JSONMember(.y, .double($0.y)), JSONMember(.z, .double($0.z))]) } ?? .null
        },
        .init(.headingDeg, JSONSchema.number.orNull().described("the site-frame direction of the antenna's boresight, degrees (gateway.heading_deg)")) {
            number($0.headingDegrees)
        },
        .optional(.rangingIntervalMs, JSONSchema.integer.minimum(1).described("the configured session's ranging interval, milliseconds")) {
            $0.rangingInterval.map { .int(Int64(($0.seconds * 1000).rounded())) }
        },
    ])

    /// A point of the site frame, metres.
    static let sitePoint = JSONSchema.object([.init(.x, .number), .init(.y, .number), .init(.z, .number)])

    public static let lastWill: [UInt8] = Array(#"{"state":"offline"}"#.utf8)
    /// What the broker publishes for the agent when its connection is lost: ``lastWill``.
    static let lastWillSchema = JSONSchema.object([.init(.state, .constant("offline"))])
        .described("the last will, published by the broker when the agent's connection is lost")

    /// `status` as a subscriber sees it: the agent's, or its last will.
    package static var statusSchema: JSONSchema { .oneOf([statusFields.schema, lastWillSchema]) }

    /// `device`: retained, on every device state change.
    public static func device(ts: Double, state: DeviceLinkState, port: String, info: DeviceInfo?, capabilities: DeviceCapabilities) -> [JSONMember] {
        deviceFields.members(DeviceSource(ts: ts, state: state, port: port, info: info, capabilities: capabilities))
    }

    struct DeviceSource {
        var ts: Double
        var state: DeviceLinkState
        var port: String
        var info: DeviceInfo?
        var capabilities: DeviceCapabilities
    }

    /// The device's states, as `device` names them.
    static let deviceStates = [DeviceLinkState.absent(nil), .opening, .initializing, .ranging, .idle, .error("")].map(\.name)

    static let deviceFields = PayloadFields<DeviceSource>([
        .init(.ts, .timestamp) { .string(Timestamp.rfc3339($0.ts)) },
        .init(.state, .enumeration(deviceStates)) { .string($0.state.name) },
        .init(.port, JSONSchema.string.described("the port as configured (device.port), or the one found")) { .string($0.port) },
        .init(.uciVersion, JSONSchema.string.orNull()) { string($0.info?.uciVersion.description) },
        .init(.macVersion, JSONSchema.string.orNull()) { string($0.info?.macVersion.description) },
        .init(.phyVersion, JSONSchema.string.orNull()) { string($0.info?.phyVersion.description) },
        .init(.firmware, JSONSchema.string.orNull()) { string($0.info?.qorvo?.firmwareVersionString) },
        .init(.capabilities, JSONSchema.object([.init(.aoa, .boolean, required: false), .init(.extendedMacAddress, .boolean, required: false)]).orNull()
                .described("null until the device has said what it is; empty when it did not list its capabilities")) { source in
            guard source.info != nil else { return .null }
            let capabilities = source.capabilities
            guard !capabilities.isEmpty else { return .object([]) }
            return .object([JSONMember(.aoa, .bool(capabilities.hasAoA)), JSONMember(.extendedMacAddress, .bool(capabilities.hasExtendedMACAddress))])
        },
        .init(.error, JSONSchema.string.orNull().described("why, in the states absent and error")) {
            string($0.state.name == "error" || $0.state.name == "absent" ? $0.state.message : nil)
        },
    ])

    /// `range`: one ranging measurement of one peer. Angles are null unless the device gave a
    /// valid one (FOM above zero); distances null when the measurement failed. `peer` is the
    /// peer's `peer` and `mac` members as ``rangePeer(name:mac:)`` rendered them (the agent keeps
    /// them per peer); `ts` the RFC 3339 text of the measurement's time (shared by the
    /// measurements of one notification). Once per measurement, so written member by member into
    /// `json` (no member list to build and walk), with the bytes `render` gives for the same fields.
    ///
    /// ``rangeSchema`` declares what it writes, member by member in the same order.
    static func range(into json: inout JSONBytes, ts: String, peer: RenderedMembers, measurement m: TwoWayRangingMeasurement,
                      session: UInt32, sequence: UInt32, filteredDistance: Double?,
                      angles: (azimuth: Double?, elevation: Double?)) {
        let raw = m.validDistanceMeters
        json.beginObject()
        json.member(.ts); json.appendPlainString(ts)
        json.append(peer)
        json.member(.session); json.appendNumber(Int64(session))
        json.member(.seq); json.appendNumber(Int64(sequence))
        json.member(.status); json.appendPlainString(m.status.isSuccess ? "ok" : m.status.description)
        json.member(.distanceM); json.appendNumber(raw == nil ? nil : filteredDistance.map(ProximityPayloads.millimetres))
        json.member(.rawDistanceM); json.appendNumber(raw)
        json.member(.nlos); json.appendBool(m.isNonLineOfSight)
        if angles.azimuth == nil && angles.elevation == nil {
            json.append(rangeWithoutAngle)
        } else {
            json.member(.azimuthDeg); json.appendNumber(angles.azimuth)
            json.member(.elevationDeg); json.appendNumber(angles.elevation)
            json.member(.azimuthFom); json.appendNumber(angles.azimuth == nil ? nil : Int64(m.aoaAzimuthFOM))
            json.member(.elevationFom); json.appendNumber(angles.elevation == nil ? nil : Int64(m.aoaElevationFOM))
        }
        json.member(.rssiDbm); json.appendNumber(m.rssiDBm)
        json.endObject()
    }

    /// A `range` payload's angle members without an angle: all four null, as the members one by
    /// one would write them. A device without angle of arrival (the DWM3001C) sends none, so
    /// nearly every measurement writes these bytes.
    static let rangeWithoutAngle = RenderedMembers { json in
        json.member(.azimuthDeg); json.appendNumber(Double?.none)
        json.member(.elevationDeg); json.appendNumber(Double?.none)
        json.member(.azimuthFom); json.appendNumber(Int64?.none)
        json.member(.elevationFom); json.appendNumber(Int64?.none)
    }

    /// The `peer` and `mac` members of a peer's `range` payloads: the same for every measurement
    /// of the peer, so written once.
    static func rangePeer(name: String, mac: String) -> RenderedMembers {
        RenderedMembers { json in
            json.member(.peer); json.appendString(name)
            json.member(.mac); json.appendString(mac)
        }
    }

    /// What ``range(into:ts:peer:measurement:session:sequence:filteredDistance:angles:)`` writes.
    package static let rangeSchema = JSONSchema.object([
        .init(.ts, .timestamp), .init(.peer, JSONSchema.string.described("the peer's name as configured, or its address")),
        .init(.mac, JSONSchema.string.described("the peer's address: 0x0001, or 16 hex digits for an extended address")),
        .init(.session, JSONSchema.count.described("the session id")), .init(.seq, JSONSchema.count.described("the device's sequence number")),
        .init(.status, JSONSchema.string.described("ok, or the UCI status name of a failed measurement (RANGING_RX_TIMEOUT)")),
        .init(.distanceM, JSONSchema.number.orNull().described("metres after the filter; null when the measurement failed")),
        .init(.rawDistanceM, JSONSchema.number.orNull().described("metres as the device reported them")),
        .init(.nlos, JSONSchema.boolean.orNull()),
        .init(.azimuthDeg, JSONSchema.number.orNull().described("degrees; null without a valid angle of arrival")),
        .init(.elevationDeg, JSONSchema.number.orNull().described("degrees; null without a valid angle of arrival")),
        .init(.azimuthFom, JSONSchema.integer.orNull()), .init(.elevationFom, JSONSchema.integer.orNull()),
        .init(.rssiDbm, JSONSchema.number.orNull()),
    ])

    /// `response/<name>`: echoes the request's `id`, says `ok`, and carries `data` or `error`.
    public static func response(id: JSONValue?, ok: Bool, data: JSONValue? = nil, error: String? = nil) -> [JSONMember] {
        responseFields.members(ResponseSource(id: id, ok: ok, data: data, error: error))
    }

    struct ResponseSource {
        var id: JSONValue?
        var ok: Bool
        var data: JSONValue?
        var error: String?
    }

    static let responseFields = PayloadFields<ResponseSource>([
        .optional(.id, Request.idProperty.schema) { $0.id },
        .init(.ok, .boolean) { .bool($0.ok) },
        .optional(.data, JSONSchema.freeObject.described("the answer, when ok")) { $0.ok ? $0.data ?? .object([]) : .none },
        .optional(.error, JSONSchema.string.described("why not, when not ok")) { $0.ok ? .none : .string($0.error ?? "failed") },
    ])

    /// An answer as a subscriber sees it: `ok` with `data` as `data` declares, or not `ok` with
    /// `error` (the envelope is ``responseFields``).
    package static func responseSchema(data: JSONSchema) -> JSONSchema {
        .oneOf([responseVariant(ok: true, data: data), refusalSchema])
    }

    /// An answer that is not `ok`.
    package static var refusalSchema: JSONSchema { responseVariant(ok: false, data: .anyValue) }

    private static func responseVariant(ok: Bool, data: JSONSchema) -> JSONSchema {
        .object(responseFields.fields.map(\.property).compactMap { property in
            var property = property
            switch property.key {
            case PayloadKey.ok.text: property.schema = .constant(.bool(ok))
            case PayloadKey.data.text:
                guard ok else { return nil }
                (property.schema, property.required) = (data, true)
            case PayloadKey.error.text:
                guard !ok else { return nil }
                property.required = true
            default: break
            }
            return property
        })
    }
}
