/// UCI message names as the FiRa specification and Qorvo's tools spell them (uci.md §2.2, §6.3),
/// so that a log line or a `decode` output can be looked up.
public enum MessageName {
    /// The name with its kind suffix (`CORE_GET_DEVICE_INFO_RSP`), or nil for an unknown GID/OID.
    public static func name(_ type: MessageType, gid: UInt8, oid: UInt8) -> String? {
        switch type {
        case .data:
            switch gid {
            case 1: return "DATA_MESSAGE_SND"
            case 2: return "DATA_MESSAGE_RCV"
            case 0xF: return "RADAR_DATA_MESSAGE"
            default: return nil
            }
        case .testCommand, .testResponse:
            return nil
        case .command, .response, .notification:
            break
        }
        let opcode = Opcode(gid: gid, oid: oid)
        if type == .notification { return Opcode.notificationNames[opcode] }
        return Opcode.commandNames[opcode].map { $0 + type.nameSuffix }
    }
}
