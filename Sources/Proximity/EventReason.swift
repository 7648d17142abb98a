import Vocabulary

/// Why an event fired: the `reason` object of an event payload.
///
/// Threshold events carry `threshold_m`, `dwell_ms` and `crossed_at` (the time the distance first
/// crossed; the event's own `ts` is the measurement that completed the dwell). Events forced by
/// something other than a threshold carry `cause` (a ``LossCause`` raw value, or one of the
/// ``Cause`` values) and, for `signal_lost`, `last_seen`. Facing events carry the tolerance and
/// azimuth that decided them. Absent fields are left out of the rendered object.
public struct EventReason: Hashable, Sendable {
    /// Causes that are not link losses.
    public enum Cause: String, Hashable, Sendable {
        /// Direction became unavailable (facing_lost).
        case directionUnavailable = "direction_unavailable"
        /// The last angle is older than `max_age`.
        case stale
        /// The angle's figure of merit is below `min_fom`, or the measurement carried no angle.
        case lowFOM = "low_fom"
        /// The phone reported that it has no angle now (the gateway is outside its field of view).
        case noAngle = "no_angle"
        /// The rules were replaced and the rule went away or changed.
        case rulesChanged = "rules_changed"
    }

    public var thresholdM: Double?
    public var dwellMs: Int?
    /// Seconds since the epoch.
    public var crossedAt: Double?
    /// A ``LossCause`` or ``Cause`` raw value.
    public var cause: String?
    /// Seconds since the epoch: the last valid measurement before a loss.
    public var lastSeen: Double?
    public var toleranceDeg: Double?
    public var azimuthDeg: Double?
    public var fom: Int?
    /// Who measured the direction a direction event is about.
    public var directionSource: DirectionSource?

    public init(thresholdM: Double? = nil, dwellMs: Int? = nil, crossedAt: Double? = nil, cause: String? = nil,
                lastSeen: Double? = nil, toleranceDeg: Double? = nil, azimuthDeg: Double? = nil, fom: Int? = nil,
                directionSource: DirectionSource? = nil) {
        self.thresholdM = thresholdM
        self.dwellMs = dwellMs
        self.crossedAt = crossedAt
        self.cause = cause
        self.lastSeen = lastSeen
        self.toleranceDeg = toleranceDeg
        self.azimuthDeg = azimuthDeg
        self.fom = fom
        self.directionSource = directionSource
    }

    static func loss(_ cause: LossCause, lastSeen: Double? = nil) -> EventReason {
        EventReason(cause: cause.rawValue, lastSeen: lastSeen)
    }

    static func because(_ cause: Cause) -> EventReason { EventReason(cause: cause.rawValue) }

    /// The reason as an ordered object, keys as in the API (`threshold_m`, `dwell_ms`, `crossed_at`,
    /// `cause`, `last_seen`, `tolerance_deg`, `azimuth_deg`, `fom`, `direction_source`). `timestamp` renders the two time
    /// fields (the API wants RFC 3339 text; the core has no clock or calendar).
    public func value(timestamp: (Double) -> JSONValue) -> JSONValue {
        var fields: [JSONMember] = []
        if let thresholdM { fields.append(.init(.thresholdM, .double(thresholdM))) }
        if let dwellMs { fields.append(.init(.dwellMs, .int(Int64(dwellMs)))) }
        if let crossedAt { fields.append(.init(.crossedAt, timestamp(crossedAt))) }
        if let cause { fields.append(.init(.cause, .string(cause))) }
        if let lastSeen { fields.append(.init(.lastSeen, timestamp(lastSeen))) }
        if let toleranceDeg { fields.append(.init(.toleranceDeg, .double(toleranceDeg))) }
        if let azimuthDeg { fields.append(.init(.azimuthDeg, .double(azimuthDeg))) }
        if let fom { fields.append(.init(.fom, .int(Int64(fom)))) }
        if let directionSource { fields.append(.init(.directionSource, .string(directionSource.rawValue))) }
        return .object(fields)
    }
}
