/// `uwb2mqtt completion bash|zsh|fish`: a completion script for the shell, made from the
/// commands' declarations.
public struct CompletionCommand: Command {
    static let shell = Operand("bash|zsh|fish", .required, .choice(CompletionScript.Shell.allCases.map(\.rawValue)),
                               help: "the shell to complete in")

    static let declaration = CommandDeclaration(
        name: "completion", abstract: "print a shell completion script for bash, zsh or fish",
        discussion: """
        Completes commands, options, option values (files, built-in scenarios, schema names) and
        operands. Install it where the shell looks for completions, for example:

          uwb2mqtt completion bash > /etc/bash_completion.d/uwb2mqtt
          uwb2mqtt completion zsh > "${fpath[1]}/_uwb2mqtt"
          uwb2mqtt completion fish > ~/.config/fish/completions/uwb2mqtt.fish

        or, for the current bash only: source <(uwb2mqtt completion bash)
        """,
        arguments: [.operand(shell)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "on success")])

    var shell: CompletionScript.Shell

    init(_ arguments: ParsedArguments) {
        // The parser has checked that the operand is one of the shells.
        shell = CompletionScript.Shell(rawValue: arguments.value(Self.shell)!)!
    }

    func run(_ console: Console) -> Int32 {
        console.output(CompletionScript.script(for: shell, commands: CommandLineTool.commands.map { $0.declaration }))
        return ExitStatus.success
    }
}
