import DeviceLink
import UCI

/// The JSON payloads of the v1 topic tree (mqtt-api.md, "Payloads"), built as ordered fields so
/// that keys appear in the documented order and unknown values are an explicit `null`.
public enum Payloads {
    public static func render(_ fields: [Field]) -> [UInt8] { FieldRendering.jsonBytes(fields) }

    static func number(_ value: Double?) -> FieldValue { value.map(FieldValue.double) ?? .null }
    static func int(_ value: Int?) -> FieldValue { value.map { .int(Int64($0)) } ?? .null }
    static func string(_ value: String?) -> FieldValue { value.map(FieldValue.string) ?? .null }

    /// `status`: retained; the last will is `{"state":"offline"}` without ts.
    public static func status(online: Bool, ts: Double, position: GatewayPosition?, headingDegrees: Double?) -> [Field] {
        [Field("state", .string(online ? "online" : "offline")), Field("ts", .string(Timestamp.rfc3339(ts))),
         Field("version", .string(AgentVersion.agent)),
         Field("position", position.map { .object([Field("x", .double($0.x)), Field("y", .double($0.y)), Field("z", .double($0.z))]) } ?? .null),
         Field("heading_deg", number(headingDegrees))]
    }

    public static let lastWill: [UInt8] = Array(#"{"state":"offline"}"#.utf8)

    /// `device`: retained, on every device state change.
    public static func device(ts: Double, state: DeviceLinkState, port: String, info: DeviceInfo?, capabilities: DeviceCapabilities) -> [Field] {
        var caps: [Field] = []
        if !capabilities.isEmpty {
            caps = [Field("aoa", .bool(capabilities.hasAoA)), Field("extended_mac_address", .bool(capabilities.hasExtendedMACAddress))]
        }
        return [Field("ts", .string(Timestamp.rfc3339(ts))), Field("state", .string(state.name)), Field("port", .string(port)),
                Field("uci_version", string(info?.uciVersion.description)),
                Field("mac_version", string(info?.macVersion.description)),
                Field("phy_version", string(info?.phyVersion.description)),
                Field("firmware", string(info?.qorvo?.firmwareVersionString)),
                Field("capabilities", info == nil ? .null : .object(caps)),
                Field("error", string(state.message.flatMap { state.name == "error" || state.name == "absent" ? $0 : nil }))]
    }

    /// `range`: one ranging measurement of one peer. Angles are null unless the device gave a
    /// valid one (FOM above zero); distances null when the measurement failed. `mac` is the
    /// measurement's address notation when the caller has it at hand (the agent keeps it per peer).
    /// `timestamps` renders `ts`: the measurements of one notification share it.
    static func range(ts: Double, peer: String, measurement m: TwoWayRangingMeasurement, session: UInt32,
                      sequence: UInt32, filteredDistance: Double?, angles: (azimuth: Double?, elevation: Double?),
                      mac: String? = nil, timestamps: inout TimestampMemo) -> [Field] {
        let raw = m.validDistanceMeters
        let ok = raw != nil
        return [Field("ts", .string(timestamps.rfc3339(ts))), Field("peer", .string(peer)),
                Field("mac", .string(mac ?? m.macAddress.description)), Field("session", .int(Int64(session))),
                Field("seq", .int(Int64(sequence))),
                Field("status", .string(m.status.isSuccess ? "ok" : m.status.description)),
                Field("distance_m", ok ? number(filteredDistance.map(ProximityPayloads.millimetres)) : .null), Field("raw_distance_m", number(raw)),
                Field("nlos", m.isNonLineOfSight.map(FieldValue.bool) ?? .null),
                Field("azimuth_deg", number(angles.azimuth)), Field("elevation_deg", number(angles.elevation)),
                Field("azimuth_fom", angles.azimuth == nil ? .null : .int(Int64(m.aoaAzimuthFOM))),
                Field("elevation_fom", angles.elevation == nil ? .null : .int(Int64(m.aoaElevationFOM))),
                Field("rssi_dbm", number(m.rssiDBm))]
    }

    /// `response/<name>`: echoes the request's `id`, says `ok`, and carries `data` or `error`.
    public static func response(id: FieldValue?, ok: Bool, data: FieldValue? = nil, error: String? = nil) -> [Field] {
        var fields: [Field] = []
        if let id { fields.append(Field("id", id)) }
        fields.append(Field("ok", .bool(ok)))
        if ok { fields.append(Field("data", data ?? .object([]))) } else { fields.append(Field("error", .string(error ?? "failed"))) }
        return fields
    }
}

/// The gateway's configured position in the site frame, metres.
public struct GatewayPosition: Hashable, Sendable, Decodable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}
