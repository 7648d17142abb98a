import SimulatorHosting
import Gateway

/// The options several commands share, declared once so that their help reads the same everywhere.
extension Option {
    /// The agent's configuration file (`run`, `check`, `doctor`, `record`).
    static let agentConfiguration = Option.value(
        "--config", "FILE", help: "the configuration (default \(AgentConfiguration.defaultPath))")

    /// The built-in DWM3001C simulator instead of the device (`run`, `record`).
    static let simulate = Option.optionalValue(
        "--simulate", "SCENARIO", .fileOr(ScenarioLoading.builtIns.keys.sorted()),
        help: "replace the device by the built-in DWM3001C simulator behind a real pseudo-terminal; SCENARIO is a "
            + "scenario file or a built-in (\(ScenarioLoading.builtIns.keys.sorted().joined(separator: ", ")); default "
            + "when none is given). Without a configuration file, the scenario's peers and the defaults are used.")
}
