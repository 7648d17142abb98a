import Foundation

/// What the agent tests share: a config, the example rules, the walk-by scenario, JSON parsing.
public enum AgentFixtures {
    /// A config for a test: gateway `gw`, two peers, the given broker URL and spool directory.
    /// `devicePort`: a real (or pseudo-terminal) port instead of the `--simulate` one.
    public static func config(url: String, spool: String, extra: String = "", mqttExtra: String = "", devicePort: String? = nil) -> String {
        """
        gateway: {id: gw}
        device:
          port: \(devicePort ?? "auto")
          ranging_interval: 100ms
          peers:
            - {address: 0x0001, name: phone-anna}
            - {address: 0x0002, name: tool-cart}
        mqtt:
          url: \(url)
          spool_dir: \(spool)
          metrics_interval: 1s
        \(mqttExtra)
        \(extra)
        """
    }

    /// deploy/rules.yaml, the example rules of rules.md.
    public static let exampleRulesPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../deploy/rules.yaml").standardized.path

    /// Anna walks from 12 m to 8 cm in 8 s, holds 3 s (hands her phone over), walks back to 12 m,
    /// then her tag goes out of range; the tool cart stands at 3 m.
    public static let walkBy = """
    name: walk-by
    seed: 11
    duration: 40
    at_end: stop
    device: {aoa: false, ranging_interval: 0.1}
    noise: {sigma: 0.02, dropout_probability: 0}
    peers:
      - address: 0x0001
        name: phone-anna
        path:
          - {t: 0, distance: 12}
          - {t: 8, distance: 0.08}
          - {t: 11, distance: 0.08}
          - {t: 19, distance: 12}
          - {t: 40, distance: 12}
        out_of_range: [{from: 20, to: 40}]
      - address: 0x0002
        name: tool-cart
        path: [{t: 0, distance: 3}]
    """

    /// Anna stands 12 m off for 15 s, walks to 8 cm in 8 s and stays there; the tool cart stands at
    /// 3 m. For a test that must see her far off and then near whenever it looks: a loaded machine
    /// can start the agent or draw a view seconds late, which walk-by's timeline does not allow.
    public static let walkUpAndStay = """
    name: walk-up-and-stay
    seed: 11
    duration: 90
    at_end: stop
    device: {aoa: false, ranging_interval: 0.1}
    noise: {sigma: 0.02, dropout_probability: 0}
    peers:
      - address: 0x0001
        name: phone-anna
        path:
          - {t: 0, distance: 12}
          - {t: 15, distance: 12}
          - {t: 23, distance: 0.08}
          - {t: 90, distance: 0.08}
      - address: 0x0002
        name: tool-cart
        path: [{t: 0, distance: 3}]
    """

    /// Parses a JSON payload for assertions (empty for anything that is not an object).
    public static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }
}
