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
    public enum Cause: String, Hashable, Sendable, CaseIterable {
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
        withoutActuallyEscaping(timestamp) { timestamp in .object(Self.fields.members(Rendering(reason: self, timestamp: timestamp))) }
    }

    /// What ``fields`` renders: a reason, and how the payload writes a time.
    public struct Rendering {
        let reason: EventReason
        let timestamp: (Double) -> JSONValue
    }

    /// The members of `reason`, each there only when the event has it.
    public static let fields = PayloadFields<Rendering>([
        .optional(.thresholdM, JSONSchema.number.described("the distance crossed, metres")) { $0.reason.thresholdM.map(JSONValue.double) },
        .optional(.dwellMs, JSONSchema.count.described("how long the crossing had to hold, milliseconds")) {
            $0.reason.dwellMs.map { .int(Int64($0)) }
        },
        .optional(.crossedAt, JSONSchema.timestamp.described("when the distance first crossed")) { r in r.reason.crossedAt.map(r.timestamp) },
        .optional(.cause, JSONSchema.enumeration(LossCause.allCases.map(\.rawValue) + Cause.allCases.map(\.rawValue))
                    .described("why, when no threshold decided")) { $0.reason.cause.map(JSONValue.string) },
        .optional(.lastSeen, JSONSchema.timestamp.described("the last valid measurement before a loss")) { r in r.reason.lastSeen.map(r.timestamp) },
        .optional(.toleranceDeg, JSONSchema.number.described("the facing tolerance that decided, degrees")) {
            $0.reason.toleranceDeg.map(JSONValue.double)
        },
        .optional(.azimuthDeg, JSONSchema.number.described("the azimuth that decided, degrees")) { $0.reason.azimuthDeg.map(JSONValue.double) },
        .optional(.fom, JSONSchema.integer.minimum(0).maximum(100).described("the angle's figure of merit")) {
            $0.reason.fom.map { .int(Int64($0)) }
        },
        .optional(.directionSource, JSONSchema.enumeration(DirectionSource.allCases.map(\.rawValue))
                    .described("who measured the direction a direction event is about")) { $0.reason.directionSource.map { .string($0.rawValue) } },
    ])
}
