/// The app of a scenario phone (`app:` under a peer's `iphone:` or `phone:`), which
/// `uwb2mqtt run --simulate` plays: from `start_at` seconds after the agent starts, it asks the
/// gateway over the broker as a real app does, under `name`, and asks again whenever its session
/// ends. With `pointing`, it also reports, while it ranges, the angle at which the phone sees the
/// gateway (`phone/<name>/report`): keyframes in scenario time, linearly interpolated, azimuth 0
/// when the phone points straight at the gateway, positive to the right, elevation positive above;
/// outside the phone's field of view (``fieldOfViewAzimuth``, ``fieldOfViewElevation``) the angle
/// is reported as null, as iOS and Android give none there.
///
/// ```yaml
///   iphone:
///     app:
///       name: iphone-eve
///       start_at: 2
///       pointing: [{t: 0, azimuth: 70, elevation: -20}, {t: 12, azimuth: 5, elevation: 0}]
/// ```
public struct ScenarioPhoneApp: Hashable, Sendable {
    /// Where the phone sees the gateway at `t`.
    public struct Pointing: Hashable, Sendable {
        public var t: Double
        public var azimuth: Double
        public var elevation: Double

        public init(t: Double, azimuth: Double, elevation: Double = 0) {
            self.t = t
            self.azimuth = azimuth
            self.elevation = elevation
        }
    }

    /// The name the app asks with: the peer's name in the gateway's payloads and topics.
    public var name: String
    public var startAt: Double
    /// Empty: the app reports nothing.
    public var pointing: [Pointing]

    public init(name: String, startAt: Double = 0, pointing: [Pointing] = []) {
        self.name = name
        self.startAt = startAt
        self.pointing = pointing
    }

    /// The simulated phone's field of view for direction, about a phone's: ±60° across, ±45° up
    /// and down.
    public static let fieldOfViewAzimuth = 60.0
    public static let fieldOfViewElevation = 45.0

    /// The angle at which the phone sees the gateway at scenario time `t`, nil outside its field
    /// of view or without a pointing path.
    public func angle(at t: Double) -> (azimuth: Double, elevation: Double)? {
        guard let first = pointing.first, let last = pointing.last else { return nil }
        var seen = (first.azimuth, first.elevation)
        if t >= last.t {
            seen = (last.azimuth, last.elevation)
        } else if t > first.t {
            var upper = 1
            while pointing[upper].t <= t { upper += 1 }
            let a = pointing[upper - 1], b = pointing[upper]
            let f = (t - a.t) / (b.t - a.t)
            seen = (a.azimuth + (b.azimuth - a.azimuth) * f, a.elevation + (b.elevation - a.elevation) * f)
        }
        guard abs(seen.0) <= Self.fieldOfViewAzimuth, abs(seen.1) <= Self.fieldOfViewElevation else { return nil }
        return seen
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name
        case startAt = "start_at"
        case pointing
    }

    enum PointingKeys: String, CodingKey, CaseIterable {
        case t, azimuth, elevation
    }

    /// Decodes an `app:` mapping, refusing unknown keys.
    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let a = try decoder.container(keyedBy: CodingKeys.self)
        var pointing: [Pointing] = []
        if a.contains(.pointing) {
            var list = try a.nestedUnkeyedContainer(forKey: .pointing)
            while !list.isAtEnd {
                let item = try list.superDecoder()
                try item.rejectUnknownKeys(PointingKeys.self)
                let k = try item.container(keyedBy: PointingKeys.self)
                pointing.append(Pointing(t: try k.decode(Double.self, forKey: .t), azimuth: try k.decode(Double.self, forKey: .azimuth),
                                         elevation: try k.decodeIfPresent(Double.self, forKey: .elevation) ?? 0))
            }
        }
        self.init(name: try a.decode(String.self, forKey: .name), startAt: try a.decodeIfPresent(Double.self, forKey: .startAt) ?? 0,
                  pointing: pointing)
    }

    /// `field` is the entry's place in the scenario (`peers[0x7570].iphone.app`).
    func validate(field: String) throws(ScenarioError) {
        guard !name.isEmpty, name.utf8.count <= 64 else {
            throw .invalidValue(field: field + ".name", value: String(name.prefix(64)), expected: "1 to 64 bytes")
        }
        guard startAt.isFinite else { throw .notFinite(field: field + ".start_at") }
        guard startAt >= 0 else { throw .outOfRange(field: field + ".start_at", value: startAt, expected: "≥ 0 seconds") }
        for (index, key) in pointing.enumerated() {
            let at = field + ".pointing[\(index)]"
            for (name, value) in [("t", key.t), ("azimuth", key.azimuth), ("elevation", key.elevation)] where !value.isFinite {
                throw .notFinite(field: at + "." + name)
            }
            guard (-180...180).contains(key.azimuth) else { throw .outOfRange(field: at + ".azimuth", value: key.azimuth, expected: "-180…180°") }
            guard (-90...90).contains(key.elevation) else { throw .outOfRange(field: at + ".elevation", value: key.elevation, expected: "-90…90°") }
            if index > 0, key.t <= pointing[index - 1].t {
                throw .outOfRange(field: at + ".t", value: key.t, expected: "later than the keyframe before it")
            }
        }
    }
}
