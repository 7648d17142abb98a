import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The real `uwb2mqtt` executable run as a child process (`run --config … --simulate …`), so
/// that signals, the last will and restarts are tested as an operator would see them.
final class AgentProcess: Sendable {
    let process: ChildProcess
    let directory: TemporaryDirectory

    /// The built executable, beside the test bundle.
    static var executable: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return bundle.appendingPathComponent("uwb2mqtt").path
    }

    /// Starts the agent with `config` (YAML text) and a simulator `scenario` (YAML text or a built-in name).
    init(config: String, scenario: String = "default", directory: TemporaryDirectory, name: String = "agent") throws {
        self.directory = directory
        let configPath = try directory.write("\(name).yaml", config)
        var scenarioArgument = scenario
        if scenario.contains("\n") { scenarioArgument = try directory.write("\(name)-scenario.yaml", scenario) }
        process = try ChildProcess(executable: Self.executable,
                                   arguments: ["run", "--config", configPath, "--simulate", scenarioArgument],
                                   stdoutPath: directory.file("\(name).out"), stderrPath: directory.file("\(name).err"))
    }

    var log: String { (try? String(contentsOfFile: process.stderrPath, encoding: .utf8)) ?? "" }

    func stop() { process.terminate() }
}

/// A config for a test: gateway `gw`, two peers, the given broker URL and spool directory.
func testConfig(url: String, spool: String, extra: String = "", mqttExtra: String = "") -> String {
    """
    gateway: {id: gw}
    device:
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

/// Parses a JSON payload for assertions.
func json(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
}

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
