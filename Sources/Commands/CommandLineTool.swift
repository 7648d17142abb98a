import Service
import Gateway

/// The `uwb2mqtt` command line: every command, and the dispatch from a command line to one of
/// them. What each command accepts is in its declaration; the exit statuses are in `ExitStatus`.
public enum CommandLineTool {
    /// Every command, in the order `help` lists them.
    static let commands: [any Command.Type] = [
        RunCommand.self, CheckCommand.self, PortsCommand.self, DecodeCommand.self, SimulateCommand.self,
        RecordCommand.self, ReplayCommand.self, FuseCommand.self, WatchCommand.self, SchemaCommand.self, DoctorCommand.self,
        VersionCommand.self, HelpCommand.self, CompletionCommand.self, ManCommand.self,
    ]

    static func command(named name: String) -> (any Command.Type)? {
        commands.first { $0.declaration.name == name }
    }

    /// `uwb2mqtt help`: the commands, one line each.
    static var overview: String {
        HelpText.overview(commands.map { $0.declaration }, version: AgentVersion.agent)
    }

    /// Runs the command line (without the program name) and returns the exit status.
    public static func main(_ arguments: [String], console: Console = .standard) -> Int32 {
        guard let name = arguments.first else {
            console.errors(overview)
            return ExitStatus.usage
        }
        let rest = Array(arguments.dropFirst())
        // The spellings people try before reading the help.
        switch name {
        case "--help", "-h": return HelpCommand.main(rest, console: console)
        case "--version": return VersionCommand.main(rest, console: console)
        default: break
        }
        guard let command = command(named: name) else {
            console.errors(UsageError("unknown command '\(name)'").message(command: nil))
            return ExitStatus.usage
        }
        return command.main(rest, console: console)
    }
}
