#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Gateway
import OfflineTools
import DeviceLink

/// The `uwb2mqtt` command line: subcommand dispatch, help and exit statuses
/// (cli-and-config.md). 1 = bad input or config, 2 = bad usage, 3 = device or broker unreachable.
public enum CommandLineTool {
    /// A subcommand: its synopsis, what it does, and its options, for `help`.
    struct Subcommand {
        let name: String
        let synopsis: String
        let summary: String
        let details: String
    }

    static let subcommands: [Subcommand] = [
        Subcommand(name: "run", synopsis: "uwb2mqtt run [--config FILE] [--simulate [SCENARIO]]",
                   summary: "run the gateway agent", details: RunCommand.details),
        Subcommand(name: "check", synopsis: "uwb2mqtt check [--config FILE] [--rules FILE]",
                   summary: "validate config and rules without device or broker", details: ""),
        Subcommand(name: "ports", synopsis: "uwb2mqtt ports",
                   summary: "list serial ports, marking those that look like a DWM3001C",
                   details: """
                   Lists the serial ports with their USB VID:PID, serial number and description. Ports with
                   the DWM3001C's USB id (1915:520F) are marked; `device.port: auto` picks the first of them
                   and confirms it answers UCI, since the CLI firmware has the same id.
                   """),
        Subcommand(name: "decode", synopsis: "uwb2mqtt decode [--json] [HEX …]",
                   summary: "decode UCI packets given as hex",
                   details: """
                   Each argument is one UCI packet in hex; spaces, ':', '.', ',' separators and 0x prefixes
                   are allowed. Without arguments, reads one packet a line from standard input (blank lines
                   and lines starting with '#' are skipped). Segments of one message (PBF) given as
                   consecutive packets are joined and decoded once; a line with several whole packets back
                   to back is split into them.

                   Options:
                     --json    one JSON object per decoded message (keys as in cli-and-config.md)

                   Exit status: 0 when every packet decoded, 1 when any was malformed (reported as
                   {"error": …, "payload": …} after the rest are decoded), 2 for bad usage.
                   """),
        Subcommand(name: "simulate", synopsis: "uwb2mqtt simulate [--link PATH] [--position X,Y,Z] [SCENARIO]",
                   summary: "run the DWM3001C simulator on a pseudo-terminal",
                   details: """
                   Runs a simulated DWM3001C (UCI firmware) on a new pseudo-terminal and prints its path, for
                   another program to open as if it were the board's serial port. Runs until Ctrl-C.

                   SCENARIO is a scenario file (YAML) or a built-in: default (someone walks up, hands a phone
                   over and walks away; a tag goes out of range), with-angles (the same with a device that
                   reports angles), with-faults (garbage, split writes, device reset and error, unplug,
                   session stop).

                   Options:
                     --link PATH   make PATH a symlink to the terminal, kept pointing at it across
                                   simulated unplugs (use it as device.port)
                     --position X,Y,Z
                                   where this simulated gateway stands (metres, site frame), for
                                   scenarios that place tags in site coordinates
                   """),
        Subcommand(name: "record", synopsis: "uwb2mqtt record --out FILE [--config FILE]",
                   summary: "record every UCI packet received, with its time", details: ""),
        Subcommand(name: "replay", synopsis: "uwb2mqtt replay FILE [--config FILE] [--rules FILE] [--fast] [--svg OUT]",
                   summary: "replay a recording through decoding, filters and rules", details: ""),
        Subcommand(name: "fuse", synopsis: "uwb2mqtt fuse --config FILE",
                   summary: "fuse several gateways' ranges into site positions and site zones", details: ""),
        Subcommand(name: "schema", synopsis: "uwb2mqtt schema config|rules",
                   summary: "print the JSON Schema of the config or the rules file (for editors)", details: ""),
        Subcommand(name: "doctor", synopsis: "uwb2mqtt doctor [--config FILE]",
                   summary: "check config, device and broker, one line each", details: ""),
        Subcommand(name: "version", synopsis: "uwb2mqtt version",
                   summary: "print the versions of the agent, libserialport and libmosquitto", details: ""),
        Subcommand(name: "help", synopsis: "uwb2mqtt help [COMMAND]", summary: "describe the commands", details: ""),
    ]

    static var overview: String {
        var text = """
        uwb2mqtt \(AgentVersion.agent) — a UWB proximity gateway: Qorvo DWM3001C (FiRa UCI) in, MQTT out.

        Usage: uwb2mqtt COMMAND [OPTIONS]

        Commands:

        """
        let width = subcommands.map(\.name.count).max() ?? 0
        for command in subcommands {
            let pad = String(repeating: " ", count: width - command.name.count + 2)
            text += "  \(command.name)\(pad)\(command.summary)\n"
        }
        text += "\nRun 'uwb2mqtt help COMMAND' or 'uwb2mqtt COMMAND --help' for a command's options."
        return text
    }

    static func help(for name: String) -> String? {
        // These commands carry their whole help text, usage line included.
        switch name {
        case "check": return CheckCommand.help
        case "doctor": return DoctorCommand.help
        case "record": return RecordCommand.help
        case "replay": return ReplayCommand.help
        case "schema": return SchemaCommand.help
        case "fuse": return FuseCommand.help
        default: break
        }
        guard let command = subcommands.first(where: { $0.name == name }) else { return nil }
        var text = "Usage: \(command.synopsis)\n\n\(command.summary.prefix(1).uppercased() + command.summary.dropFirst())."
        if !command.details.isEmpty { text += "\n\n" + command.details }
        return text
    }

    /// Runs the command line (without the program name) and returns the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        guard let name = arguments.first else {
            printError(overview)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h"), let text = help(for: name) {
            print(text)
            return 0
        }
        switch name {
        case "help", "--help", "-h":
            if let topic = rest.first {
                guard let text = help(for: topic) else { return usage("unknown command '\(topic)'") }
                print(text)
            } else {
                print(overview)
            }
            return 0
        case "version", "--version":
            print("uwb2mqtt \(AgentVersion.agent)")
            print("libserialport \(AgentVersion.libserialport)")
            print("libmosquitto \(AgentVersion.libmosquitto)")
            return 0
        case "ports":
            guard rest.isEmpty else { return usage("ports takes no arguments") }
            print(portsReport())
            return 0
        case "simulate":
            return simulate(rest)
        case "run":
            return RunCommand.run(arguments: rest)
        case "check":
            return CheckCommand.run(arguments: rest)
        case "doctor":
            return DoctorCommand.run(arguments: rest)
        case "record":
            return RecordCommand.run(arguments: rest)
        case "replay":
            return ReplayCommand.run(arguments: rest)
        case "schema":
            return SchemaCommand.run(arguments: rest)
        case "fuse":
            return FuseCommand.run(arguments: rest)
        case "decode":
            var json = false
            var hex: [String] = []
            var onlyOperands = false
            for argument in rest {
                if !onlyOperands && argument == "--" { onlyOperands = true; continue }
                if !onlyOperands && argument == "--json" { json = true; continue }
                if !onlyOperands && argument.hasPrefix("--") { return usage("decode: unknown option '\(argument)'") }
                hex.append(argument)
            }
            let status = DecodeCommand(json: json).run(arguments: hex)
            fflush(stdout)
            return status
        default:
            if subcommands.contains(where: { $0.name == name }) {
                printError("uwb2mqtt: '\(name)' is not implemented yet in this version (see README.md)")
                return 1
            }
            return usage("unknown command '\(name)'")
        }
    }

    static func simulate(_ arguments: [String]) -> Int32 {
        var link: String?
        var position: GatewayPosition?
        var scenarioName: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--position" {
                let parts = index + 1 < arguments.count ? arguments[index + 1].split(separator: ",").compactMap { Double($0) } : []
                guard parts.count == 3 else { return usage("simulate: --position needs X,Y,Z in metres") }
                position = GatewayPosition(x: parts[0], y: parts[1], z: parts[2])
                index += 2
                continue
            }
            if argument == "--link" {
                guard index + 1 < arguments.count else { return usage("simulate: --link needs a PATH") }
                link = arguments[index + 1]
                index += 2
                continue
            }
            if argument.hasPrefix("--") { return usage("simulate: unknown option '\(argument)'") }
            guard scenarioName == nil else { return usage("simulate: one SCENARIO at most") }
            scenarioName = argument
            index += 1
        }
        do {
            let scenario = try ScenarioLoading.load(scenarioName)
            let host = try SimulatorHost(scenario: scenario, linkPath: link, gatewayPosition: position) { printError("uwb2mqtt simulate: \($0)") }
            print(link.map { "\($0) -> \(host.slavePath)" } ?? host.slavePath)
            fflush(stdout)
            _ = SignalWaiter.wait(for: [SIGINT, SIGTERM])
            host.stop()
            return 0
        } catch {
            printError("uwb2mqtt: \(error)")
            return 1
        }
    }

    private static func usage(_ message: String) -> Int32 {
        printError("uwb2mqtt: \(message) (run 'uwb2mqtt help')")
        return 2
    }

    static func printError(_ text: String) {
        fputs(text + "\n", stderr)
    }

    /// Writes to stderr without a newline (progress lines).
    static func writeError(_ text: String) {
        fputs(text, stderr)
    }
}
