import Service
import FoundationEssentials
import Simulator
import YAMLCoding

/// Finds the simulator scenario a command line names: a built-in (`default`, `with-angles`,
/// `with-faults`, `with-iphone`) or a YAML file, decoded with the same file:line:column errors as the config.
public enum ScenarioLoading {
    public static let builtIns: [String: Scenario] = [
        "default": .default, "with-angles": .withAngles, "with-faults": .withFaults, "with-iphone": .withIPhone,
    ]

    public static func load(_ name: String?) throws -> Scenario {
        guard let name else { return .default }
        if let builtIn = builtIns[name] { return builtIn }
        guard let data = FileManager.default.contents(atPath: name) else {
            throw ConfigurationError("no scenario \"\(name)\": not a file, and not one of \(builtIns.keys.sorted().joined(separator: ", "))")
        }
        let scenario = try YAMLDecoder().decode(Scenario.self, from: data, file: name)
        do {
            try scenario.validate()
        } catch {
            throw ConfigurationError("\(name): \(error)")
        }
        return scenario
    }
}
