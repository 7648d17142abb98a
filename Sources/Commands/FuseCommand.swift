import Service
import Fuse
import Gateway
import FoundationEssentials
import SiteFusion
import YAMLCoding

/// `uwb2mqtt fuse --config FILE`: the site-position service (mqtt-api.md, "Site positions").
public struct FuseCommand: Command {
    static let config = Option.value("--config", "FILE", required: true,
                                     help: "the fuse configuration: broker, site, gateways and zones")

    static let declaration = CommandDeclaration(
        name: "fuse", abstract: "fuse several gateways' ranges into site positions and site zones",
        discussion: """
        Combines the ranges that several gateways publish for the same tag into site positions, by
        least squares (2-D with tag_height from 3 gateways, 3-D from 4) that leaves out ranges reading
        too long without a NLoS flag, with an accuracy_m (1σ radius) from the fit's covariance,
        residuals and the readings the ranges cannot rule out, and runs polygon zones with hysteresis
        and dwell. Ranges within window (default 1.25 × ranging_interval, 200ms) are combined.
        Gateways are learned from their retained status (gateway.position in their config). A range
        is dated by its arrival; one whose ts is further than max_clock_skew (2s) off this machine's
        clock is refused. A peer without a range for forget_after (60s) is forgotten and its retained
        state cleared. Publishes under <base>/site/<site>/: status, peer/<peer>/position, state and
        event. Several instances stand by for each other. Runs until Ctrl-C.
        """,
        arguments: [.option(config)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "after Ctrl-C"),
                       ExitStatus.Meaning(ExitStatus.failure, "for a bad configuration")])

    var configPath: String

    init(_ arguments: ParsedArguments) {
        // The parser has checked that the required option is there.
        configPath = arguments.value(Self.config)!
    }

    func run(_ console: Console) -> Int32 {
        let logger = Logger()
        let configuration: FuseConfiguration
        do {
            guard let data = FileManager.default.contents(atPath: configPath) else {
                throw ConfigurationError("cannot read \(configPath)")
            }
            configuration = try YAMLDecoder().decode(FuseConfiguration.self, from: data, file: configPath)
            do { try configuration.validate() } catch { throw ConfigurationError("\(configPath): \(error)") }
        } catch {
            logger.error("\(error)")
            return ExitStatus.failure
        }
        for warning in configuration.warnings { logger.warning("\(configPath): \(warning)") }
        return FuseService(configuration: configuration, logger: logger).run()
    }
}
