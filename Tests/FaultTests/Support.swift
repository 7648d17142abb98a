import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// Helpers of the fault-injection suite. AgentProcess, testConfig, json and eventually follow
// Tests/AgentTests/AgentProcess.swift (test targets cannot share sources).

/// `UWB2MQTT_SOAK=1` selects the long variants (`make soak`).
let soak = ProcessInfo.processInfo.environment["UWB2MQTT_SOAK"] == "1"

/// The real `uwb2mqtt` executable run as a child process on the simulator.
final class AgentProcess: Sendable {
    let process: ChildProcess
    let directory: TemporaryDirectory
    let name: String

    /// The built executable, beside the test bundle.
    static var executable: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return bundle.appendingPathComponent("uwb2mqtt").path
    }

    /// Starts `uwb2mqtt run --config … --simulate …`; with `shellPrefix` (e.g. `ulimit -f 8;`) the
    /// agent is exec'd from `/bin/sh -c`, so the PID is still the agent's.
    init(config: String, scenario: String = "default", directory: TemporaryDirectory, name: String = "agent",
         shellPrefix: String? = nil) throws {
        self.directory = directory
        self.name = name
        let configPath = try directory.write("\(name).yaml", config)
        var scenarioArgument = scenario
        if scenario.contains("\n") { scenarioArgument = try directory.write("\(name)-scenario.yaml", scenario) }
        let arguments = ["run", "--config", configPath, "--simulate", scenarioArgument]
        if let shellPrefix {
            let command = shellPrefix + " exec " + ([Self.executable] + arguments).map { "'\($0)'" }.joined(separator: " ")
            process = try ChildProcess(executable: "/bin/sh", arguments: ["-c", command],
                                       stdoutPath: directory.file("\(name).out"), stderrPath: directory.file("\(name).err"))
        } else {
            process = try ChildProcess(executable: Self.executable, arguments: arguments,
                                       stdoutPath: directory.file("\(name).out"), stderrPath: directory.file("\(name).err"))
        }
    }

    var log: String { (try? String(contentsOfFile: process.stderrPath, encoding: .utf8)) ?? "" }
    var logLines: [Substring] { log.split(separator: "\n") }

    /// Open file descriptors of the agent (entries of /proc/PID/fd).
    var openDescriptors: Int { ProcFS.descriptorCount(pid: process.pid) }
    /// Resident set size of the agent in KiB (VmRSS).
    var residentKiB: Int { ProcFS.residentKiB(pid: process.pid) }

    func stop() { process.terminate() }
}

enum ProcFS {
    static func descriptorCount(pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// What each descriptor points at, for a message when the count changed.
    static func descriptorTargets(pid: pid_t) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return names.sorted { Int($0) ?? 0 < Int($1) ?? 0 }.map { name in
            "\(name)→" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)")) ?? "?")
        }
    }

    static func residentKiB(pid: pid_t) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }
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

/// deploy/rules.yaml, the example rules.
let exampleRulesPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../deploy/rules.yaml").standardized.path

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

/// An event id `<gw>:<boot id>:<counter>` taken apart.
struct EventID: Hashable, CustomStringConvertible {
    var boot: String
    var counter: Int

    init?(_ text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let counter = Int(parts[2]) else { return nil }
        boot = String(parts[1])
        self.counter = counter
    }

    var description: String { "\(boot):\(counter)" }
}

/// The event ids a subscriber received (every `peer/+/event` message, duplicates included), in order.
func eventIDs(_ subscriber: MQTTTestSubscriber) -> [EventID] {
    subscriber.messages.filter { $0.topic.hasSuffix("/event") }.compactMap { (json($0.payload)["id"] as? String).flatMap(EventID.init) }
}

/// Checks the delivery promise on what arrived: per boot id, the counters seen (first occurrence of
/// each, duplicates being QoS 1's right) run 1, 2, 3, … without a gap and in order.
/// Returns a description of every violation (empty when none).
func deliveryViolations(_ ids: [EventID]) -> [String] {
    var problems: [String] = []
    var seen: Set<EventID> = []
    var next: [String: Int] = [:]
    for id in ids where seen.insert(id).inserted {
        let expected = next[id.boot, default: 1]
        if id.counter != expected {
            problems.append(id.counter > expected ? "gap: \(id.boot) expected \(expected), got \(id.counter)"
                                                  : "out of order: \(id) after \(expected - 1)")
        }
        next[id.boot] = max(expected, id.counter + 1)
    }
    return problems
}
