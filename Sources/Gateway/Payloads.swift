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
        var fields = [JSONMember(.state, .string(online ? "online" : "offline")), JSONMember(.ts, .string(Timestamp.rfc3339(ts))),
                      JSONMember(.version, .string(AgentVersion.agent)),
                      JSONMember(.position, position.map { .object([JSONMember(.x, .double($0.x)), JSONMember(.y, .double($0.y)), JSONMember(.z, .double($0.z))]) } ?? .null),
                      JSONMember(.headingDeg, number(headingDegrees))]
        if let rangingInterval { fields.append(JSONMember(.rangingIntervalMs, .int(Int64((rangingInterval.seconds * 1000).rounded())))) }
        return fields
    }

    public static let lastWill: [UInt8] = Array(#"{"state":"offline"}"#.utf8)

    /// `device`: retained, on every device state change.
    public static func device(ts: Double, state: DeviceLinkState, port: String, info: DeviceInfo?, capabilities: DeviceCapabilities) -> [JSONMember] {
        var caps: [JSONMember] = []
        if !capabilities.isEmpty {
            caps = [JSONMember(.aoa, .bool(capabilities.hasAoA)), JSONMember(.extendedMacAddress, .bool(capabilities.hasExtendedMACAddress))]
        }
        return [JSONMember(.ts, .string(Timestamp.rfc3339(ts))), JSONMember(.state, .string(state.name)), JSONMember(.port, .string(port)),
                JSONMember(.uciVersion, string(info?.uciVersion.description)),
                JSONMember(.macVersion, string(info?.macVersion.description)),
                JSONMember(.phyVersion, string(info?.phyVersion.description)),
                JSONMember(.firmware, string(info?.qorvo?.firmwareVersionString)),
                JSONMember(.capabilities, info == nil ? .null : .object(caps)),
                JSONMember(.error, string(state.message.flatMap { state.name == "error" || state.name == "absent" ? $0 : nil }))]
    }

    /// `range`: one ranging measurement of one peer. Angles are null unless the device gave a
    /// valid one (FOM above zero); distances null when the measurement failed. `mac` is the
    /// measurement's address notation when the caller has it at hand (the agent keeps it per peer);
    /// `ts` the RFC 3339 text of the measurement's time (shared by the measurements of one
    /// notification). Once per measurement, so written member by member into `json` (no member
    /// list to build and walk), with the bytes `render` gives for the same fields.
    static func range(into json: inout JSONBytes, ts: String, peer: String, measurement m: TwoWayRangingMeasurement,
                      session: UInt32, sequence: UInt32, filteredDistance: Double?,
                      angles: (azimuth: Double?, elevation: Double?), mac: String? = nil) {
        let raw = m.validDistanceMeters
        json.beginObject()
        json.member(.ts); json.appendString(ts)
        json.member(.peer); json.appendString(peer)
        json.member(.mac); json.appendString(mac ?? m.macAddress.description)
        json.member(.session); json.appendNumber(Int64(session))
        json.member(.seq); json.appendNumber(Int64(sequence))
        json.member(.status); json.appendString(m.status.isSuccess ? "ok" : m.status.description)
        json.member(.distanceM); json.appendNumber(raw == nil ? nil : filteredDistance.map(ProximityPayloads.millimetres))
        json.member(.rawDistanceM); json.appendNumber(raw)
        json.member(.nlos); json.appendBool(m.isNonLineOfSight)
        json.member(.azimuthDeg); json.appendNumber(angles.azimuth)
        json.member(.elevationDeg); json.appendNumber(angles.elevation)
        json.member(.azimuthFom); json.appendNumber(angles.azimuth == nil ? nil : Int64(m.aoaAzimuthFOM))
        json.member(.elevationFom); json.appendNumber(angles.elevation == nil ? nil : Int64(m.aoaElevationFOM))
        json.member(.rssiDbm); json.appendNumber(m.rssiDBm)
        json.endObject()
    }

    /// `response/<name>`: echoes the request's `id`, says `ok`, and carries `data` or `error`.
    public static func response(id: JSONValue?, ok: Bool, data: JSONValue? = nil, error: String? = nil) -> [JSONMember] {
        var fields: [JSONMember] = []
        if let id { fields.append(JSONMember(.id, id)) }
        fields.append(JSONMember(.ok, .bool(ok)))
        if ok { fields.append(JSONMember(.data, data ?? .object([]))) } else { fields.append(JSONMember(.error, .string(error ?? "failed"))) }
        return fields
    }
}

