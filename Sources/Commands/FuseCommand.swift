import Fuse
import Gateway
import Dispatch
import FoundationEssentials
import SiteFusion
import Synchronization
import YAMLCoding

/// `uwb2mqtt fuse --config FILE`: the site-position service (mqtt-api.md, "Site positions").
public enum FuseCommand {
    public static let help = """
    Usage: uwb2mqtt fuse --config FILE

    Combines the ranges that several gateways publish for the same tag into site positions, by
    least squares (2-D with tag_height from 3 gateways, 3-D from 4) that leaves out ranges reading
    too long without a NLoS flag, with an accuracy_m (1σ radius) from the fit's covariance,
    residuals and the readings the ranges cannot rule out, and runs polygon zones with hysteresis
    and dwell. Ranges within window (default 1.25 × ranging_interval, 200ms) are combined.
    Gateways are learned from their retained status (gateway.position in their config). Publishes
    under <base>/site/<site>/: status, peer/<peer>/position, state and event. Several instances
    stand by for each other. Runs until Ctrl-C.

    Exit status: 0 after Ctrl-C, 1 bad config, 2 bad usage.
    """

    public static func run(arguments: [String]) -> Int32 {
        guard arguments.count == 2, arguments[0] == "--config" else {
            CommandLineTool.printError("uwb2mqtt: fuse: --config FILE is required (run 'uwb2mqtt help fuse')")
            return 2
        }
        let logger = Logger()
        let configuration: FuseConfiguration
        do {
            guard let data = FileManager.default.contents(atPath: arguments[1]) else {
                throw ConfigurationError("cannot read \(arguments[1])")
            }
            configuration = try YAMLDecoder().decode(FuseConfiguration.self, from: data, file: arguments[1])
            do { try configuration.validate() } catch { throw ConfigurationError("\(arguments[1]): \(error)") }
        } catch {
            logger.error("\(error)")
            return 1
        }
        for warning in configuration.warnings { logger.warning("\(arguments[1]): \(warning)") }
        return FuseService(configuration: configuration, logger: logger).run()
    }
}
