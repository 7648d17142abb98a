import OfflineTools

/// `uwb2mqtt schema config|rules`: prints one of the JSON Schemas, for an editor's YAML language
/// server (`# yaml-language-server: $schema=<file>` on a file's first line, or the editor's
/// schema settings).
public struct SchemaCommand: Command {
    static let file = Operand("config|rules", .required, .choice(["config", "rules"]),
                              help: "the configuration file or the rules file")

    static let declaration = CommandDeclaration(
        name: "schema", abstract: "print the JSON Schema of the config or the rules file (for editors)",
        discussion: """
        The schema is JSON Schema draft-07, printed to stdout. Editors with a YAML language server use
        it to complete keys, show their descriptions and defaults, and flag unknown keys and wrong
        values while typing. Save it and point the editor at it, for example as the first line of the
        YAML file:

          uwb2mqtt schema rules > /etc/uwb2mqtt/rules.schema.json
          # yaml-language-server: $schema=rules.schema.json

        `uwb2mqtt check` stays the authority: it also checks what a schema cannot express (duplicate
        addresses and names, thresholds in the wrong order).
        """,
        arguments: [.operand(file)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "on success")])

    /// The schema to print, by the file it describes.
    var schema: String

    init(_ arguments: ParsedArguments) {
        schema = arguments.value(Self.file) == "rules" ? Schemas.rules : Schemas.config
    }

    func run(_ console: Console) -> Int32 {
        console.output(schema)
        return ExitStatus.success
    }
}
