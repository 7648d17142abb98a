import Foundation
import Testing
import TestSupport

/// Shorthands for the shared fixtures of TestSupport.
func testConfig(url: String, spool: String, extra: String = "", mqttExtra: String = "") -> String {
    AgentFixtures.config(url: url, spool: spool, extra: extra, mqttExtra: mqttExtra)
}

func json(_ text: String) -> [String: Any] { AgentFixtures.json(text) }

/// Polls `condition` until it holds or `timeout` passes (then records an issue with `what`).
@discardableResult
func eventually(_ what: String, timeout: Double = 15, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting for \(what)")
    return false
}
