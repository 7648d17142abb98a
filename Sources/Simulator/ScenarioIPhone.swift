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
/// again whenever its session ends; with `pointing` it reports what the phone sees
/// (``ScenarioPhoneApp``).
public struct ScenarioIPhone: Hashable, Sendable {
    public var app: ScenarioPhoneApp?

    public init(app: ScenarioPhoneApp? = nil) {
        self.app = app
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case app
    }

    /// Decodes a peer's `iphone:` mapping, refusing unknown keys.
    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard c.contains(.app) else { return }
        app = try ScenarioPhoneApp(from: c.superDecoder(forKey: .app))
    }

    /// `field` is the entry's place in the scenario (`peers[0x7570].iphone`).
    func validate(field: String) throws(ScenarioError) {
        try app?.validate(field: field + ".app")
    }
}
