import Foundation
import Gateway
import YAMLCoding

/// A config file's text as the agent reads it (`c.yaml` in messages), for the tests of its keys.
enum ConfigText {
    static func load(_ yaml: String) throws -> AgentConfiguration {
        try YAMLDecoder().decode(AgentConfiguration.self, from: Data(yaml.utf8), file: "c.yaml")
    }

    /// The error a user sees for `yaml` (`c.yaml:line:column: …`), or `<loaded without error>`.
    static func failure(_ yaml: String) -> String {
        do {
            _ = try load(yaml)
            return "<loaded without error>"
        } catch {
            return "\(error)"
        }
    }
}
