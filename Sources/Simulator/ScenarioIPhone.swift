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
/// again whenever its session ends.
public struct ScenarioIPhone: Hashable, Sendable {
    public struct App: Hashable, Sendable {
        /// The name the app asks with: the peer's name in the gateway's payloads and topics.
        public var name: String
        public var startAt: Double

        public init(name: String, startAt: Double = 0) {
            self.name = name
            self.startAt = startAt
        }
    }

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
    }

    /// Decodes a peer's `iphone:` mapping, refusing unknown keys.
    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard c.contains(.app) else { return }
        let appDecoder = try c.superDecoder(forKey: .app)
        try appDecoder.rejectUnknownKeys(AppKeys.self)
        let a = try appDecoder.container(keyedBy: AppKeys.self)
        app = App(name: try a.decode(String.self, forKey: .name), startAt: try a.decodeIfPresent(Double.self, forKey: .startAt) ?? 0)
    }

    /// `field` is the entry's place in the scenario (`peers[0x7570].iphone`).
    func validate(field: String) throws(ScenarioError) {
        guard let app else { return }
        guard !app.name.isEmpty, app.name.utf8.count <= 64 else {
            throw .invalidValue(field: field + ".app.name", value: String(app.name.prefix(64)), expected: "1 to 64 bytes")
        }
        guard app.startAt.isFinite else { throw .notFinite(field: field + ".app.start_at") }
        guard app.startAt >= 0 else { throw .outOfRange(field: field + ".app.start_at", value: app.startAt, expected: "≥ 0 seconds") }
    }
}
