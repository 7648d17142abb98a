/// A scenario peer that is an iPhone (`iphone:` under a peer). The peer's `address` stands for
/// the random address iOS picks per session; its path, windows and noise apply as to any peer.
/// It answers nothing until its app runs an NISession with the gateway's accessory configuration
/// data (`SimulatedDevice.startIPhone`), and from then on only a gateway session that matches
/// what iOS chose (`IPhoneNearbySession.airConfiguration`).
///
/// ```yaml
/// - address: 0x7570
///   path: [{t: 0, distance: 1.5}]
///   iphone: {}                                    # started from code (a test playing the app)
///   # iphone: {app: {name: iphone-eve, start_at: 2}}   # or its app asks the gateway itself
/// ```
///
/// With `app`, `uwb2mqtt run --simulate` also plays the iPhone's app: from `start_at` seconds
/// after the agent starts, it asks the gateway over the broker as a real app does
/// (`phone_session` with `"platform": "ios"`, then `phone_session_start`) under `name`, and asks
/// again whenever its session ends. With `pointing`, the app also reports, while it ranges, the
/// angle at which the phone sees the gateway (`phone/<name>/report`): keyframes in scenario time,
/// linearly interpolated, azimuth 0 when the phone points straight at the gateway, positive to
/// the right, elevation positive above; outside the phone's field of view
/// (``fieldOfViewAzimuth``, ``fieldOfViewElevation``) the angle is reported as null, as iOS gives
/// no `direction` there.
///
/// ```yaml
///   iphone:
///     app:
///       name: iphone-eve
///       pointing: [{t: 0, azimuth: 70, elevation: -20}, {t: 12, azimuth: 5, elevation: 0}]
/// ```
public struct ScenarioIPhone: Hashable, Sendable {
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

    public struct App: Hashable, Sendable {
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

        /// The angle at which the phone sees the gateway at scenario time `t`, nil outside its
        /// field of view or without a pointing path.
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
            guard abs(seen.0) <= ScenarioIPhone.fieldOfViewAzimuth, abs(seen.1) <= ScenarioIPhone.fieldOfViewElevation else { return nil }
            return seen
        }
    }

    /// The simulated phone's field of view for direction, about an iPhone's: ±60° across, ±45° up
    /// and down.
    public static let fieldOfViewAzimuth = 60.0
    public static let fieldOfViewElevation = 45.0

    public var app: App?

    public init(app: App? = nil) {
        self.app = app
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case app
    }

    enum AppKeys: String, CodingKey, CaseIterable {
        case name
        case startAt = "start_at"
        case pointing
    }

    enum PointingKeys: String, CodingKey, CaseIterable {
        case t, azimuth, elevation
    }

    /// Decodes a peer's `iphone:` mapping, refusing unknown keys.
    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard c.contains(.app) else { return }
        let appDecoder = try c.superDecoder(forKey: .app)
        try appDecoder.rejectUnknownKeys(AppKeys.self)
        let a = try appDecoder.container(keyedBy: AppKeys.self)
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
        app = App(name: try a.decode(String.self, forKey: .name), startAt: try a.decodeIfPresent(Double.self, forKey: .startAt) ?? 0,
                  pointing: pointing)
    }

    /// `field` is the entry's place in the scenario (`peers[0x7570].iphone`).
    func validate(field: String) throws(ScenarioError) {
        guard let app else { return }
        guard !app.name.isEmpty, app.name.utf8.count <= 64 else {
            throw .invalidValue(field: field + ".app.name", value: String(app.name.prefix(64)), expected: "1 to 64 bytes")
        }
        guard app.startAt.isFinite else { throw .notFinite(field: field + ".app.start_at") }
        guard app.startAt >= 0 else { throw .outOfRange(field: field + ".app.start_at", value: app.startAt, expected: "≥ 0 seconds") }
        for (index, key) in app.pointing.enumerated() {
            let at = field + ".app.pointing[\(index)]"
            for (name, value) in [("t", key.t), ("azimuth", key.azimuth), ("elevation", key.elevation)] where !value.isFinite {
                throw .notFinite(field: at + "." + name)
            }
            guard (-180...180).contains(key.azimuth) else { throw .outOfRange(field: at + ".azimuth", value: key.azimuth, expected: "-180…180°") }
            guard (-90...90).contains(key.elevation) else { throw .outOfRange(field: at + ".elevation", value: key.elevation, expected: "-90…90°") }
            if index > 0, key.t <= app.pointing[index - 1].t {
                throw .outOfRange(field: at + ".t", value: key.t, expected: "later than the keyframe before it")
            }
        }
    }
}
