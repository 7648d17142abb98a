import Foundation
import Testing
import TestSupport

/// Shorthands for the shared fixtures of TestSupport.
func testConfig(url: String, spool: String, extra: String = "", mqttExtra: String = "") -> String {
    AgentFixtures.config(url: url, spool: spool, extra: extra, mqttExtra: mqttExtra)
}

func json(_ text: String) -> [String: Any] { AgentFixtures.json(text) }

/// A `fuse` config for the site "lobby" with one zone, `checkout`, over `checkoutPolygon`.
func fuseConfig(url: String, checkoutPolygon: String, positionLostAfter: String = "2s") -> String {
    """
    site: lobby
    mqtt: {url: "\(url)", base_topic: uwb2mqtt}
    ranging_interval: 100ms     # the agents' device.ranging_interval; the window follows it
    tag_height: 1.0
    position_lost_after: \(positionLostAfter)
    zones:
      - name: checkout
        polygon: \(checkoutPolygon)
        hysteresis: 0.1
        dwell: 200ms
    """
}

/// Polls `condition` until it holds or `timeout` passes (then records an issue with `what`).
@discardableResult
func eventually(_ what: String, timeout: Double = 15, _ condition: () -> Bool) async -> Bool {
    if await waitUntil(timeout: timeout, condition) { return true }
    Issue.record("timed out waiting for \(what)")
    return false
}
