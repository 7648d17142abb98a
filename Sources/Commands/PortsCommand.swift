import DeviceLink

/// `uwb2mqtt ports`: the serial ports, for finding the board (`device.port`).
public struct PortsCommand: Command {
    static let declaration = CommandDeclaration(
        name: "ports", abstract: "list serial ports, marking those that look like a DWM3001C",
        discussion: """
        Lists the serial ports with their USB VID:PID, serial number and description. Ports with
        the DWM3001C's USB id (1915:520F) are marked; `device.port: auto` picks the first of them
        and confirms it answers UCI, since the CLI firmware has the same id.
        """,
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "on success")])

    init(_ arguments: ParsedArguments) {}

    func run(_ console: Console) -> Int32 {
        console.output(portsReport())
        return ExitStatus.success
    }
}
