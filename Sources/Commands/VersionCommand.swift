import Service
import Gateway

/// `uwb2mqtt version`: what a bug report needs to say about the build.
public struct VersionCommand: Command {
    static let declaration = CommandDeclaration(
        name: "version", abstract: "print the versions of the agent, libserialport and libmosquitto",
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "on success")])

    init(_ arguments: ParsedArguments) {}

    func run(_ console: Console) -> Int32 {
        console.output("uwb2mqtt \(AgentVersion.agent)")
        console.output("libserialport \(AgentVersion.libserialport)")
        console.output("libmosquitto \(AgentVersion.libmosquitto)")
        return ExitStatus.success
    }
}
