import Foundation
@testable import Gateway
import Proximity
import Testing
import TestSupport
import Vocabulary
import RulesReading

/// The retained `rules` payload stays well below a broker's packet limit (the shipped mosquitto
/// config's 64 KiB) at every bound of a rules file: over it, the broker drops the connection and
/// the journal sends it again on every reconnect.
@Suite struct RulesPayloadTests {
    static let start = AgentMoment(time: 1_800_000_000, monotonic: 500)
    static let path = "/etc/uwb2mqtt/rules.yaml"

    func core() -> AgentCore {
        var configuration = AgentConfiguration(device: AgentConfiguration.Device(peers: [AgentConfiguration.Peer(address: 1, name: "cart")]))
        configuration.gateway.id = "gw"
        configuration.rules = Self.path
        var core = AgentCore(configuration: configuration, eventIDPrefix: "gw:test") { _ in [RulesComponent()] }
        core.handle(.started, at: Self.start)
        _ = core.takeActions()
        return core
    }

    /// Every bound at once, names and patterns of 64 characters, none matching the configured
    /// peer (a warning per rule and per base score: 1,136).
    static func rulesAtEveryBound() throws -> Rules {
        let patterns = (0..<RulesBounds.peersPerRule).map { LargeRulesFile.name("tag", $0, length: 64) }
        let text = LargeRulesFile.text(zones: RulesBounds.zones, bands: RulesBounds.stageBands, approaches: RulesBounds.approaches,
                                       rankings: RulesBounds.rankings, peers: patterns, baseScores: RulesBounds.baseScoresPerRanking,
                                       nameLength: 64)
        return try RulesFile.load(text: text, file: path)
    }

    func published(_ core: inout AgentCore) -> (bytes: Int, payload: [String: Any], logs: [String]) {
        let message = core.take().first { $0.topic == "uwb2mqtt/gw/rules" }
        let logs = core.takeActions().compactMap { if case let .log(_, text) = $0 { text } else { nil } }
        let payload = message.flatMap { try? JSONSerialization.jsonObject(with: Data($0.payload)) as? [String: Any] } ?? [:]
        return (message?.payload.count ?? 0, payload, logs)
    }

    @Test func atEveryBoundTheRulesPayloadIsUnder32KiB() throws {
        var core = core()
        let rules = try Self.rulesAtEveryBound()
        core.handle(.rulesLoaded(.success(rules), path: Self.path, trigger: .start), at: Self.start)
        let (bytes, payload, logs) = published(&core)
        #expect(bytes > 0 && bytes < 32 << 10, "\(bytes) bytes")
        #expect(payload["ok"] as? Bool == true)

        // Warnings: 15 of them and a line that counts the rest; the log says the same, not 1,136 lines.
        let warnings = payload["warnings"] as? [String] ?? []
        #expect(warnings.count == 16)
        #expect(warnings.last == "… and 1121 more warnings (uwb2mqtt check --rules lists them all)", "\(warnings.last ?? "")")
        #expect(warnings.first?.contains(", … 60 more] match no configured peer") == true, "\(warnings.first ?? "")")
        #expect(logs.filter { $0.hasPrefix("rules: ") }.count == 16)

        // Thresholds: as many as fit, in file order; the rest counted.
        let thresholds = payload["thresholds"] as? [[String: Any]] ?? []
        let omitted = payload["thresholds_omitted"] as? Int ?? -1
        #expect(!thresholds.isEmpty && omitted > 0)
        #expect(thresholds.count + omitted == 64 * 2 + 15 + 32 * 3)
        #expect(thresholds.first?["rule"] as? String == rules.zones[0].name && (thresholds.first?["peers"] as? [String])?.count == 64)
    }

    /// A refused reload publishes the error beside the active rules' summary: no larger.
    @Test func aRefusedReloadBesideRulesAtEveryBoundIsUnder32KiB() throws {
        var core = core()
        core.handle(.rulesLoaded(.success(try Self.rulesAtEveryBound()), path: Self.path, trigger: .start), at: Self.start)
        _ = published(&core)
        let failure = RulesLoading.Failure(line: 67, column: 5, message: "at most 64 zones are allowed, found 10000 (this is the 65th)", file: Self.path)
        core.handle(.rulesLoaded(.failure(failure), path: Self.path, trigger: .signal), at: Self.start)
        let (bytes, payload, _) = published(&core)
        #expect(bytes > 0 && bytes < 32 << 10, "\(bytes) bytes")
        #expect(payload["ok"] as? Bool == false && (payload["thresholds_omitted"] as? Int ?? 0) > 0)
    }

    /// The example rules fit whole: nothing is left out of a real site's payload.
    @Test func theExampleRulesAreListedWhole() throws {
        var core = core()
        let rules = try RulesFile.load(data: Data(contentsOf: URL(fileURLWithPath: AgentFixtures.exampleRulesPath)), file: Self.path)
        core.handle(.rulesLoaded(.success(rules), path: Self.path, trigger: .start), at: Self.start)
        let (_, payload, _) = published(&core)
        #expect(payload["thresholds_omitted"] as? Int == 0)
        #expect((payload["thresholds"] as? [Any])?.count == rules.zones.count * 2 + 2 + rules.approaches.count * 3)
    }
}
