/// A scenario peer that is an iPhone (`iphone: {}` under a peer). The peer's `address` stands
/// for the random address iOS picks per session; its path, windows and noise apply as to any
/// peer. It answers nothing until its app runs an NISession with the gateway's accessory
/// configuration data (`SimulatedDevice.startIPhone`), and from then on only a gateway session
/// that matches what iOS chose (`IPhoneNearbySession.airConfiguration`).
///
/// ```yaml
/// - address: 0x7570
///   path: [{t: 0, distance: 1.5}]
///   iphone: {}
/// ```
///
/// No keys yet: everything else comes from the exchange with the gateway.
public struct ScenarioIPhone: Hashable, Sendable {
    public init() {}

    /// Decodes a peer's `iphone:` mapping, refusing any key.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        if let key = container.allKeys.first {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath + [key],
                debugDescription: "unknown key '\(key.stringValue)' (iphone takes no keys: write iphone: {})"))
        }
    }
}
