import Service
import Gateway
import FoundationEssentials
import Simulator
import SimulatorHosting

/// `uwb2mqtt run [--config FILE] [--simulate [SCENARIO]]`: loads the configuration and runs the
/// agent until SIGINT/SIGTERM.
///
/// With `--simulate` and no config file, the agent runs on defaults with the scenario's peers (but
/// its iPhones, whose apps ask for their sessions) and a spool in a temporary directory, so that
/// `uwb2mqtt run --simulate` works on a fresh machine against a local broker.
public struct RunCommand: Command {
    static let declaration = CommandDeclaration(
        name: "run", abstract: "run the gateway agent",
        discussion: """
        Keeps the DWM3001C ranging and publishes on MQTT (the v1 topic tree of mqtt-api.md). It never
        exits because the device or the broker is missing or goes away: it retries with back-off and
        logs why. SIGTERM or Ctrl-C stops it cleanly (status offline).
        """,
        arguments: [.option(.agentConfiguration), .option(.simulate)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "after SIGTERM or Ctrl-C"),
                       ExitStatus.Meaning(ExitStatus.failure, "for a bad configuration or scenario")])

    var configPath: String?
    /// The scenario to simulate (nil: the default one) when `simulates`.
    var scenarioName: String?
    var simulates: Bool

    init(_ arguments: ParsedArguments) {
        configPath = arguments.value(.agentConfiguration)
        simulates = arguments.isSet(.simulate)
        scenarioName = arguments.value(.simulate)
    }

    func run(_ console: Console) -> Int32 {
        let logger = Logger()
        var scenario: Scenario?
        if simulates {
            do {
                scenario = try ScenarioLoading.load(scenarioName)
            } catch {
                logger.error("\(error)")
                return ExitStatus.failure
            }
        }
        var configuration: AgentConfiguration
        do {
            let path = configPath ?? AgentConfiguration.defaultPath
            if configPath == nil, let scenario, !FileManager.default.fileExists(atPath: path) {
                configuration = Self.defaults(for: scenario)
                logger.info("no \(path): running the simulator on defaults (broker \(configuration.mqtt.broker.url), spool \(configuration.mqtt.spoolDir))")
            } else {
                configuration = try AgentConfiguration.load(path: path)
            }
        } catch {
            logger.error("\(error)")
            return ExitStatus.failure
        }
        let standIn = scenario.map { SimulatedDWM3001C(scenario: $0, configuration: configuration) }
        return Agent(configuration: configuration, standIn: standIn, logger: Logger(threshold: configuration.logLevel)).run()
    }

    static func defaults(for scenario: Scenario) -> AgentConfiguration {
        // An iPhone is not a configured peer: its app asks for its own session.
        let peers = scenario.peers.filter { $0.iPhone == nil }.prefix(8)
            .map { AgentConfiguration.Peer(address: $0.address, name: $0.name) }
        var configuration = AgentConfiguration(device: AgentConfiguration.Device(peers: Array(peers)))
        configuration.mqtt.spoolDir = FileSystem.temporaryDirectory + "uwb2mqtt-spool"
        configuration.source = "<defaults>"
        return configuration
    }
}
