import Service
import Gateway
import OfflineTools

/// `uwb2mqtt man uwb2mqtt|uwb2mqtt.yaml`: a manual page in roff, uwb2mqtt(1) made from the
/// commands' declarations or uwb2mqtt.yaml(5) from the configuration's schema. `make install`
/// and the Debian package install what it prints.
public struct ManCommand: Command {
    static let page = Operand(
        ManualPage.Page.allCases.map(\.rawValue).joined(separator: "|"), .required,
        .choice(ManualPage.Page.allCases.map(\.rawValue)),
        help: "the page: uwb2mqtt(1), the commands, or uwb2mqtt.yaml(5), the configuration file")

    static let declaration = CommandDeclaration(
        name: "man", abstract: "print a manual page in roff: the commands or the configuration file",
        discussion: """
        The pages are made from the declarations the help comes from and from the configuration's
        schema, so they say what this build accepts. `make install` and the Debian package install
        them; to read one without installing it:

          uwb2mqtt man uwb2mqtt | man -l -
          uwb2mqtt man uwb2mqtt.yaml | man -l -
        """,
        arguments: [.operand(page)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "on success")])

    var page: ManualPage.Page

    init(_ arguments: ParsedArguments) {
        // The parser has checked that the operand is one of the pages.
        page = ManualPage.Page(rawValue: arguments.value(Self.page)!)!
    }

    func run(_ console: Console) -> Int32 {
        let text = switch page {
        case .commands: ManualPage.commands(CommandLineTool.commands.map { $0.declaration }, version: AgentVersion.agent)
        case .configuration: ManualPage.configuration(schema: Schemas.config, version: AgentVersion.agent)
        }
        // Each call writes a line and its newline.
        console.output(String(text.dropLast()))
        return ExitStatus.success
    }
}
