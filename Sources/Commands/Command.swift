/// A subcommand of `uwb2mqtt`, in the shape of swift-argument-parser's `ParsableCommand`: its
/// declaration says what it accepts (parsing, help and completion come from it), the command
/// reads its typed options from the parsed line, and runs. `SendableMetatype` because the list
/// of commands is a constant any thread may read.
protocol Command: SendableMetatype {
    static var declaration: CommandDeclaration { get }

    /// The command with its options read from `arguments`. A value the grammar cannot check (a
    /// malformed `--position`) is a `UsageError` here, reported as every other one.
    init(_ arguments: ParsedArguments) throws(UsageError)

    /// Does the work and returns the exit status (`ExitStatus`).
    func run(_ console: Console) -> Int32
}

extension Command {
    /// The one path from a command line (after the command's name) to an exit status: `--help`
    /// prints the help, a usage error goes to `console.errors` with exit status 2, otherwise the
    /// command runs.
    static func main(_ arguments: [String], console: Console = .standard) -> Int32 {
        switch prepare(arguments, console: console) {
        case let .finished(status): status
        case let .ready(command): command.run(console)
        }
    }

    /// Help, a usage error, or a command ready to run.
    static func prepare(_ arguments: [String], console: Console) -> Preparation<Self> {
        if ArgumentParser.asksForHelp(arguments) {
            console.output(HelpText.command(declaration))
            return .finished(ExitStatus.success)
        }
        do throws(UsageError) {
            return .ready(try Self(ArgumentParser(declaration: declaration).parse(arguments)))
        } catch {
            console.errors(error.message(command: declaration.name))
            return .finished(ExitStatus.usage)
        }
    }
}

/// What `Command.prepare` made of a command line.
enum Preparation<C: Command> {
    /// Nothing left to run (help was printed, or a usage error).
    case finished(Int32)
    case ready(C)
}
