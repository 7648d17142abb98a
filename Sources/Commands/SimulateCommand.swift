import SimulatorHosting
import Vocabulary
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Gateway

/// `uwb2mqtt simulate [--link PATH] [--position X,Y,Z] [SCENARIO]`: a simulated DWM3001C on a
/// pseudo-terminal of its own, for another program (or another gateway) to open as its device.
public struct SimulateCommand: Command {
    static let link = Option.value(
        "--link", "PATH",
        help: "make PATH a symlink to the terminal, kept pointing at it across simulated unplugs (use it as device.port)")
    static let position = Option.value(
        "--position", "X,Y,Z", .text,
        help: "where this simulated gateway stands (metres, site frame), for scenarios that place tags in site coordinates")
    static let scenario = Operand(
        "SCENARIO", .optional, .fileOr(ScenarioLoading.builtIns.keys.sorted()),
        help: "a scenario file (YAML) or a built-in: default (someone walks up, hands a phone over and walks away; a tag "
            + "goes out of range), with-angles (the same with a device that reports angles), with-faults (garbage, split "
            + "writes, device reset and error, unplug, session stop), with-iphone (default with an iPhone whose app, under "
            + "run --simulate, asks the gateway for its session over MQTT)")

    static let declaration = CommandDeclaration(
        name: "simulate", abstract: "run the DWM3001C simulator on a pseudo-terminal",
        discussion: """
        Runs a simulated DWM3001C (UCI firmware) on a new pseudo-terminal and prints its path, for
        another program to open as if it were the board's serial port. Runs until Ctrl-C.
        """,
        arguments: [.option(link), .option(position), .operand(scenario)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "after Ctrl-C"),
                       ExitStatus.Meaning(ExitStatus.failure, "for a bad scenario or an unusable PATH")])

    var linkPath: String?
    var gatewayPosition: SitePoint?
    var scenarioName: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        linkPath = arguments.value(Self.link)
        scenarioName = arguments.value(Self.scenario)
        if let text = arguments.value(Self.position) {
            let parts = text.split(separator: ",").compactMap { Double($0) }
            guard parts.count == 3 else { throw UsageError("--position needs X,Y,Z in metres, found '\(text)'") }
            gatewayPosition = SitePoint(x: parts[0], y: parts[1], z: parts[2])
        }
    }

    func run(_ console: Console) -> Int32 {
        do {
            let scenario = try ScenarioLoading.load(scenarioName)
            let host = try SimulatorHost(scenario: scenario, linkPath: linkPath, gatewayPosition: gatewayPosition) {
                console.errors("uwb2mqtt simulate: \($0)")
            }
            console.output(linkPath.map { "\($0) -> \(host.slavePath)" } ?? host.slavePath)
            _ = SignalWaiter.wait(for: [SIGINT, SIGTERM])
            host.stop()
            return ExitStatus.success
        } catch {
            console.errors("uwb2mqtt: \(error)")
            return ExitStatus.failure
        }
    }
}
