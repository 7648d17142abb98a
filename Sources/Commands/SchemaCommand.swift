import OfflineTools

/// `uwb2mqtt schema config|rules|api`: prints one of the JSON Schemas, for an editor's YAML
/// language server (`# yaml-language-server: $schema=<file>` on a file's first line, or the
/// editor's schema settings), or the MQTT API as an AsyncAPI document, for the tools that read one.
public struct SchemaCommand: Command {
    static let file = Operand("config|rules|api", .required, .choice(["config", "rules", "api"]),
                              help: "the configuration file, the rules file, or the MQTT API")

    static let declaration = CommandDeclaration(
        name: "schema", abstract: "print the JSON Schema of the config or rules file, or the MQTT API",
        discussion: """
        config and rules print JSON Schema draft-07, to stdout. Editors with a YAML language server
        use it to complete keys, show their descriptions and defaults, and flag unknown keys and wrong
        values while typing. Save it and point the editor at it, for example as the first line of the
        YAML file:

          uwb2mqtt schema rules > /etc/uwb2mqtt/rules.schema.json
          # yaml-language-server: $schema=rules.schema.json

        `uwb2mqtt check` stays the authority: it also checks what a schema cannot express (duplicate
        addresses and names, thresholds in the wrong order).

        api prints the MQTT API as an AsyncAPI 3.0 document (JSON): every topic of the agent and of
        `uwb2mqtt fuse` with its parameters, retained flag and QoS, the requests with their answers,
        and a JSON Schema of every payload, made from the same declarations the agent and the fuse
        publish with. Code generators, documentation tools and payload validators read it:

          uwb2mqtt schema api > uwb2mqtt-asyncapi.json
        """,
        arguments: [.operand(file)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "on success")])

    /// The document to print, by what it describes.
    var schema: String

    init(_ arguments: ParsedArguments) {
        switch arguments.value(Self.file) {
        case "rules": schema = Schemas.rules
        case "api": schema = AsyncAPIDocument.json
        default: schema = Schemas.config
        }
    }

    func run(_ console: Console) -> Int32 {
        console.output(schema)
        return ExitStatus.success
    }
}
