import EventLoop
import FoundationEssentials
import Gateway
import Glibc
import Service
import Simulator

/// `run --simulate`: the scenario's simulated DWM3001C on a pseudo-terminal in a temporary
/// directory, and the apps of its iPhones, which ask the agent for their sessions through the
/// broker as real apps do.
public final class SimulatedDWM3001C: DeviceStandIn {
    private let scenario: Scenario
    private let configuration: AgentConfiguration
    private var host: SimulatorHost?
    private var phoneApps: SimulatedPhoneApps?
    private var directory: String?

    public let name = "the simulated DWM3001C"

    public init(scenario: Scenario, configuration: AgentConfiguration) {
        self.scenario = scenario
        self.configuration = configuration
    }

    public func start(loop: EventLoop, topics: TopicTree, logger: Logger) throws -> String {
        do {
            return try open(loop: loop, topics: topics, logger: logger)
        } catch {
            stop()
            throw error
        }
    }

    private func open(loop: EventLoop, topics: TopicTree, logger: Logger) throws -> String {
        let directory = FileSystem.temporaryDirectory + "uwb2mqtt-simulator-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        let link = directory + "/dwm3001c"
        let host = try SimulatorHost(scenario: scenario, linkPath: link, gatewayPosition: configuration.gateway.position) {
            logger.info("simulator: \($0)")
        }
        self.host = host
        logger.info("simulated DWM3001C (scenario \(scenario.name ?? "unnamed")) at \(host.slavePath)")
        phoneApps = try SimulatedPhoneApps(scenario: scenario, host: host, broker: configuration.mqtt.broker,
                                             clientID: configuration.clientID, topics: topics, loop: loop, logger: logger)
        try phoneApps?.start()
        return link
    }

    public func stop() {
        phoneApps?.stop()
        phoneApps = nil
        host?.stop()
        host = nil
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
        directory = nil
    }
}
