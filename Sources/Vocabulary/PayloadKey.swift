/// A member name of the v1 payloads (mqtt-api.md, docs/mqtt-api.md) — requests' bodies and answers
/// and phones' reports included — and of the fuse's site tree, declared once: the agent and the
/// fuse write their payloads with these (their `PayloadFields`, which the AsyncAPI document's
/// schemas come from), and the fuse and `watch` read them with the same, so that a renamed member
/// cannot leave a reader behind. A name is a
/// literal of the schema: the writer copies its bytes without escaping.
///
/// A key holds only the literal's address and length: copying one retains nothing, and each of
/// the constants below is laid out in the binary rather than made on first use (a `String` in
/// it cost a lazy initialisation, a retain and a release for every member the hot path wrote).
public struct PayloadKey: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name as written, for the hot path's `JSONBytes.member`.
    public let name: StaticString

    public init(stringLiteral name: StaticString) {
        self.name = name
    }

    /// The name as a `String` (a small one, without storage of its own, up to 15 bytes).
    public var text: String { name.description }

    public var description: String { text }

    public static func == (a: PayloadKey, b: PayloadKey) -> Bool { a.utf8.elementsEqual(b.utf8) }
    public func hash(into hasher: inout Hasher) { hasher.combine(bytes: UnsafeRawBufferPointer(utf8)) }

    /// The name's bytes, in the binary.
    private var utf8: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
    }
}

extension PayloadKey {
    public static let accessoryConfigurationData: PayloadKey = "accessory_configuration_data"
    public static let accuracyM: PayloadKey = "accuracy_m"
    public static let aoa: PayloadKey = "aoa"
    public static let approaches: PayloadKey = "approaches"
    public static let attributes: PayloadKey = "attributes"
    public static let azimuthDeg: PayloadKey = "azimuth_deg"
    public static let azimuthFom: PayloadKey = "azimuth_fom"
    public static let brokerReconnects: PayloadKey = "broker_reconnects"
    public static let capabilities: PayloadKey = "capabilities"
    public static let cause: PayloadKey = "cause"
    public static let changed: PayloadKey = "changed"
    public static let channel: PayloadKey = "channel"
    public static let column: PayloadKey = "column"
    public static let complexChannel: PayloadKey = "complex_channel"
    public static let configID: PayloadKey = "config_id"
    public static let countryCode: PayloadKey = "country_code"
    public static let crossedAt: PayloadKey = "crossed_at"
    public static let cue: PayloadKey = "cue"
    public static let data: PayloadKey = "data"
    public static let device: PayloadKey = "device"
    public static let deviceReconnects: PayloadKey = "device_reconnects"
    public static let direction: PayloadKey = "direction"
    public static let directionSource: PayloadKey = "direction_source"
    public static let distanceM: PayloadKey = "distance_m"
    public static let dropped: PayloadKey = "dropped"
    public static let dwellMs: PayloadKey = "dwell_ms"
    public static let elevationDeg: PayloadKey = "elevation_deg"
    public static let elevationFom: PayloadKey = "elevation_fom"
    public static let error: PayloadKey = "error"
    public static let events: PayloadKey = "events"
    public static let eventsDropped: PayloadKey = "events_dropped"
    public static let extendedMacAddress: PayloadKey = "extended_mac_address"
    public static let facing: PayloadKey = "facing"
    public static let firmware: PayloadKey = "firmware"
    public static let fom: PayloadKey = "fom"
    public static let frame: PayloadKey = "frame"
    public static let framesInvalid: PayloadKey = "frames_invalid"
    public static let framesRx: PayloadKey = "frames_rx"
    public static let from: PayloadKey = "from"
    public static let gatewayAddress: PayloadKey = "gateway_address"
    public static let gatewayRole: PayloadKey = "gateway_role"
    public static let gateways: PayloadKey = "gateways"
    public static let gatewaysInRange: PayloadKey = "gateways_in_range"
    public static let headingDeg: PayloadKey = "heading_deg"
    public static let hopping: PayloadKey = "hopping"
    public static let id: PayloadKey = "id"
    public static let instance: PayloadKey = "instance"
    public static let kind: PayloadKey = "kind"
    public static let lastSeen: PayloadKey = "last_seen"
    public static let line: PayloadKey = "line"
    public static let link: PayloadKey = "link"
    public static let mac: PayloadKey = "mac"
    public static let macVersion: PayloadKey = "mac_version"
    public static let measurements: PayloadKey = "measurements"
    public static let message: PayloadKey = "message"
    public static let method: PayloadKey = "method"
    public static let name: PayloadKey = "name"
    public static let nlos: PayloadKey = "nlos"
    public static let ok: PayloadKey = "ok"
    public static let peer: PayloadKey = "peer"
    public static let peers: PayloadKey = "peers"
    public static let phase: PayloadKey = "phase"
    public static let phoneAddress: PayloadKey = "phone_address"
    public static let phoneReports: PayloadKey = "phone_reports"
    public static let phoneReportsDropped: PayloadKey = "phone_reports_dropped"
    public static let phoneRole: PayloadKey = "phone_role"
    public static let phyVersion: PayloadKey = "phy_version"
    public static let platform: PayloadKey = "platform"
    public static let polygon: PayloadKey = "polygon"
    public static let port: PayloadKey = "port"
    public static let position: PayloadKey = "position"
    public static let preambleIndex: PayloadKey = "preamble_index"
    public static let progress: PayloadKey = "progress"
    public static let publishesRefused: PayloadKey = "publishes_refused"
    public static let publishQueue: PayloadKey = "publish_queue"
    public static let rangingIntervalMs: PayloadKey = "ranging_interval_ms"
    public static let rangingRoundControl: PayloadKey = "ranging_round_control"
    public static let rawDistanceM: PayloadKey = "raw_distance_m"
    public static let reason: PayloadKey = "reason"
    public static let replace: PayloadKey = "replace"
    public static let reportToken: PayloadKey = "report_token"
    public static let requestsDropped: PayloadKey = "requests_dropped"
    public static let rssiDbm: PayloadKey = "rssi_dbm"
    public static let rule: PayloadKey = "rule"
    public static let lagMs: PayloadKey = "lag_ms"
    public static let rangesDropped: PayloadKey = "ranges_dropped"
    public static let shard: PayloadKey = "shard"
    public static let rules: PayloadKey = "rules"
    public static let score: PayloadKey = "score"
    public static let seq: PayloadKey = "seq"
    public static let session: PayloadKey = "session"
    public static let sessionID: PayloadKey = "session_id"
    public static let sessionKeyInfo: PayloadKey = "session_key_info"
    public static let sha256: PayloadKey = "sha256"
    public static let shareableConfigurationData: PayloadKey = "shareable_configuration_data"
    public static let slotDurationMs: PayloadKey = "slot_duration_ms"
    public static let slotDurationRstu: PayloadKey = "slot_duration_rstu"
    public static let slotsPerRound: PayloadKey = "slots_per_round"
    public static let source: PayloadKey = "source"
    public static let spooled: PayloadKey = "spooled"
    public static let stage: PayloadKey = "stage"
    public static let startWithinMs: PayloadKey = "start_within_ms"
    public static let state: PayloadKey = "state"
    public static let status: PayloadKey = "status"
    public static let thresholdM: PayloadKey = "threshold_m"
    public static let thresholds: PayloadKey = "thresholds"
    public static let thresholdsOmitted: PayloadKey = "thresholds_omitted"
    public static let to: PayloadKey = "to"
    public static let token: PayloadKey = "token"
    public static let toleranceDeg: PayloadKey = "tolerance_deg"
    public static let ts: PayloadKey = "ts"
    public static let type: PayloadKey = "type"
    public static let uciVersion: PayloadKey = "uci_version"
    public static let updateRate: PayloadKey = "update_rate"
    public static let uptimeS: PayloadKey = "uptime_s"
    public static let uwbConfigVersion: PayloadKey = "uwb_config_version"
    public static let validForMs: PayloadKey = "valid_for_ms"
    public static let version: PayloadKey = "version"
    public static let warnings: PayloadKey = "warnings"
    public static let x: PayloadKey = "x"
    public static let y: PayloadKey = "y"
    public static let z: PayloadKey = "z"
    public static let zones: PayloadKey = "zones"
}

extension JSONBytes {
    /// `"key": ` (see ``member(_:)-(StaticString)``).
    @inlinable @inline(__always)
    public mutating func member(_ key: PayloadKey) { member(key.name) }
}

extension JSONMember {
    public init(_ key: PayloadKey, _ value: JSONValue) { self.init(key.text, value) }
}

extension PayloadReader {
    public func string(_ key: PayloadKey) throws(PayloadRejection) -> String? { try string(key.text) }
    public func bool(_ key: PayloadKey) throws(PayloadRejection) -> Bool? { try bool(key.text) }
    public func number(_ key: PayloadKey, in bounds: PayloadBounds) throws(PayloadRejection) -> Double? { try number(key.text, in: bounds) }
    public func integer(_ key: PayloadKey, in bounds: PayloadBounds) throws(PayloadRejection) -> Int? { try integer(key.text, in: bounds) }
    public func object(_ key: PayloadKey) throws(PayloadRejection) -> PayloadReader? { try object(key.text) }
    public func list(_ key: PayloadKey) throws(PayloadRejection) -> [JSONValue]? { try list(key.text) }
    public func strings(_ key: PayloadKey) throws(PayloadRejection) -> [String]? { try strings(key.text) }
    public func objects(_ key: PayloadKey) throws(PayloadRejection) -> [PayloadReader]? { try objects(key.text) }
    public func numbers(_ key: PayloadKey, in bounds: PayloadBounds) throws(PayloadRejection) -> [Double]? { try numbers(key.text, in: bounds) }
}
