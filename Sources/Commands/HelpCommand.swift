/// `uwb2mqtt help [COMMAND]`: the command list, or one command's help (as `COMMAND --help`).
public struct HelpCommand: Command {
    static let topic = Operand("COMMAND", .optional, .command, help: "the command to describe")

    static let declaration = CommandDeclaration(
        name: "help", abstract: "describe the commands",
        arguments: [.operand(topic)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "on success")])

    /// The command to describe; nil: all of them, briefly.
    var command: (any Command.Type)?

    init(_ arguments: ParsedArguments) {
        command = arguments.value(Self.topic).flatMap(CommandLineTool.command(named:))
    }

    func run(_ console: Console) -> Int32 {
        console.output(command.map { HelpText.command($0.declaration) } ?? CommandLineTool.overview)
        return ExitStatus.success
    }
}
