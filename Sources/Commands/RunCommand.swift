import Gateway
import Dispatch
import FoundationEssentials
import Simulator
import Synchronization

/// `uwb2mqtt run [--config FILE] [--simulate [SCENARIO]]`: loads the configuration and runs the
/// agent until SIGINT/SIGTERM.
///
/// With `--simulate` and no config file, the agent runs on defaults with the scenario's peers and
/// a spool in a temporary directory, so that `uwb2mqtt run --simulate` works on a fresh machine
/// against a local broker.
public enum RunCommand {
    public static let details = """
    Runs the gateway agent: keeps the DWM3001C ranging and publishes on MQTT (the v1 topic tree
    of mqtt-api.md). It never exits because the device or the broker is missing or goes away;
    it retries with back-off and logs why. SIGTERM or Ctrl-C stops it cleanly (status offline).

    Options:
      --config FILE          configuration file (default /etc/uwb2mqtt/config.yaml)
      --simulate [SCENARIO]  replace the device by the built-in DWM3001C simulator behind a real
                             pseudo-terminal; SCENARIO is a scenario file or default, with-angles,
                             with-faults. Without a config file, its peers and defaults are used.
    """

    public static func run(arguments: [String]) -> Int32 {
        var configPath: String?
        var simulate = false
        var scenarioName: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--config":
                guard index + 1 < arguments.count else { return usage("run: --config needs a FILE") }
                configPath = arguments[index + 1]
                index += 2
            case "--simulate":
                simulate = true
                if index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") {
                    scenarioName = arguments[index + 1]
                    index += 1
                }
                index += 1
            default:
                return usage("run: unexpected argument '\(argument)'")
            }
        }

        let logger = Logger()
        var scenario: Scenario?
        if simulate {
            do {
                scenario = try ScenarioLoading.load(scenarioName)
            } catch {
                logger.error("\(error)")
                return 1
            }
        }
        var configuration: AgentConfiguration
        do {
            let path = configPath ?? AgentConfiguration.defaultPath
            if configPath == nil, let scenario, !FileManager.default.fileExists(atPath: path) {
                configuration = defaults(for: scenario)
                logger.info("no \(path): running the simulator on defaults (broker \(configuration.mqtt.url), spool \(configuration.mqtt.spoolDir))")
            } else {
                configuration = try AgentConfiguration.load(path: path)
            }
        } catch {
            logger.error("\(error)")
            return 1
        }
        return Agent(configuration: configuration, scenario: scenario, logger: Logger(threshold: configuration.logLevel)).run()
    }

    static func defaults(for scenario: Scenario) -> AgentConfiguration {
        let peers = scenario.peers.prefix(8).map { AgentConfiguration.Peer(address: $0.address, name: $0.name) }
        var configuration = AgentConfiguration(device: AgentConfiguration.Device(peers: Array(peers)))
        configuration.mqtt.spoolDir = FileSystem.temporaryDirectory + "uwb2mqtt-spool"
        configuration.source = "<defaults>"
        return configuration
    }

    private static func usage(_ message: String) -> Int32 {
        CommandLineTool.printError("uwb2mqtt: \(message) (run 'uwb2mqtt help run')")
        return 2
    }
}
