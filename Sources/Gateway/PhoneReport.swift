import Vocabulary

/// What a phone's app publishes of its own measurement of the gateway while it ranges
/// (`<base>/<gw>/phone/<name>/report`, mqtt-api.md): the angle at which it sees the gateway,
/// and the session's `report_token`. Anyone on the broker can publish there, so it is read with
/// the care of any payload from the network: bounded, every number checked, and refused with a
/// cause that is counted and logged, never trusted.
struct PhoneReport: Equatable, Sendable {
    var token: String
    /// When the phone measured, seconds since the epoch.
    var ts: Double
    var distanceM: Double?
    /// 0 when the gateway is straight ahead of the phone, positive to the right; nil without an angle.
    var azimuthDeg: Double?
    /// Positive above; nil without one.
    var elevationDeg: Double?

    /// The largest report read: the five members with room to spare.
    static let maximumBytes = 512

    /// Why a report was dropped: one word each, for the log's once-per-cause lines.
    enum Refusal: String, Error, CaseIterable, Sendable {
        case retained
        case tooLarge = "too large"
        case malformed
        case outOfRange = "out of range"
        case noSession = "no session"
        case wrongToken = "wrong token"
        case late
        case ahead

        /// What it means, for the log.
        var explanation: String {
            switch self {
            case .retained: "reports are not retained"
            case .tooLarge: "over \(PhoneReport.maximumBytes) bytes"
            case .malformed: "not a report object with a token and a ts"
            case .outOfRange: "a number that is not finite or outside its range (angles within ±180°, elevation ±90°)"
            case .noSession: "no phone holds a session under that name"
            case .wrongToken: "not the report_token of the session that holds the name"
            case .late: "measured longer ago than direction.max_age"
            case .ahead: "dated ahead of the gateway's clock by more than direction.max_age (is the phone's clock set?)"
            }
        }
    }

    static let azimuthBounds = PayloadBounds(-180...180, unit: "°")
    static let elevationBounds = PayloadBounds(-90...90, unit: "°")

    /// What an app publishes, as ``parse(_:)`` reads it.
    static let schema = JSONSchema.object([
        .init(.token, ReportToken.schema),
        .init(.ts, JSONSchema.timestamp.described("when the phone measured")),
        .init(.distanceM, JSONSchema.number.within(.distanceMetres)
                .orNull().described("metres, as the phone measured them (the gateway keeps its own)"), required: false),
        .init(.azimuthDeg, JSONSchema.number.within(azimuthBounds).orNull()
                .described("0 when the gateway is straight ahead of the phone, positive to the right; null without an angle"), required: false),
        .init(.elevationDeg, JSONSchema.number.within(elevationBounds).orNull()
                .described("positive above; null without an angle"), required: false),
    ]).described("at most \(maximumBytes) bytes")

    /// Reads a report's payload. `ts` must be RFC 3339 text (as every payload's), the token a
    /// string; the numbers may be null but never out of their bounds. `size`: the payload's size
    /// as it arrived, which the client gives instead of bytes it did not copy (one over its
    /// limit arrives empty).
    static func parse(_ payload: [UInt8], size: Int? = nil) -> Result<PhoneReport, Refusal> {
        guard (size ?? payload.count) <= maximumBytes else { return .failure(.tooLarge) }
        do throws(PayloadRejection) {
            let reader = try PayloadReader(bytes: payload)
            guard let token = try reader.string(.token), let text = try reader.string(.ts), let ts = Timestamp.parse(text) else {
                return .failure(.malformed)
            }
            return .success(PhoneReport(token: token, ts: ts, distanceM: try reader.number(.distanceM, in: .distanceMetres),
                                        azimuthDeg: try reader.number(.azimuthDeg, in: azimuthBounds),
                                        elevationDeg: try reader.number(.elevationDeg, in: elevationBounds)))
        } catch {
            switch error.problem {
            case .notFinite, .outOfRange: return .failure(.outOfRange)
            case .notJSON, .wrongType, .notWhole: return .failure(.malformed)
            }
        }
    }
}
