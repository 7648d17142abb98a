import Service
import Foundation
import Gateway
import SimulatorHosting
import Simulator
import Testing
import YAMLCoding
import Vocabulary

@Suite struct ScenarioLoadingTests {
    /// The commented scenario file users copy is exactly the built-in default.
    @Test func theDefaultScenarioFileIsTheBuiltInDefault() throws {
        #expect(try YAMLDecoder().decode(Scenario.self, from: Scenario.defaultYAML, file: "default.yaml") == Scenario.default)
    }

    @Test func builtInsAndErrors() throws {
        #expect(try ScenarioLoading.load(nil) == .default)
        #expect(try ScenarioLoading.load("with-angles") == .withAngles)
        #expect(throws: ConfigurationError.self) { try ScenarioLoading.load("/no/such/scenario.yaml") }
        let path = NSTemporaryDirectory() + "scenario-\(UUID().uuidString).yaml"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "peers:\n  - address: 0x0001\n    pathh: []\n".write(toFile: path, atomically: true, encoding: .utf8)
        let error = try #require(throws: SourceError.self) { try ScenarioLoading.load(path) }
        #expect(error.description.hasPrefix("\(path):3:"))
        #expect(error.description.contains("unknown key") && error.description.contains("pathh"))
    }
}
