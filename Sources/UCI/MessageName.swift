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
        if type == .notification {
            switch (gid, oid) {
            case (0x0, 0x01): return "CORE_DEVICE_STATUS_NTF"
            case (0x0, 0x07): return "CORE_GENERIC_ERROR_NTF"
            case (0x1, 0x02): return "SESSION_STATUS_NTF"
            case (0x1, 0x07): return "SESSION_UPDATE_CONTROLLER_MULTICAST_LIST_NTF"
            case (0x2, 0x00): return "SESSION_INFO_NTF"
            case (0x2, 0x04): return "SESSION_DATA_CREDIT_NTF"
            case (0x2, 0x05): return "SESSION_DATA_TRANSFER_STATUS_NTF"
            case (0xB, 0x00): return "QORVO_TEST_DEBUG_NTF"
            case (0xB, 0x02): return "QORVO_TEST_PLLRF_NTF"
            case (0xB, 0x03): return "QORVO_FIRA_RANGE_DIAGNOSTICS_NTF"
            default: return nil
            }
        }
        guard let base = commandBase(gid: gid, oid: oid) else { return nil }
        return base + type.nameSuffix
    }

    /// Names of the command/response pairs.
    private static func commandBase(gid: UInt8, oid: UInt8) -> String? {
        switch (gid, oid) {
        case (0x0, 0x00): "CORE_DEVICE_RESET"
        case (0x0, 0x02): "CORE_GET_DEVICE_INFO"
        case (0x0, 0x03): "CORE_GET_CAPS_INFO"
        case (0x0, 0x04): "CORE_SET_CONFIG"
        case (0x0, 0x05): "CORE_GET_CONFIG"
        case (0x0, 0x06): "CORE_DEVICE_SUSPEND"
        case (0x0, 0x08): "CORE_QUERY_UWBS_TIMESTAMP"
        case (0x1, 0x00): "SESSION_INIT"
        case (0x1, 0x01): "SESSION_DEINIT"
        case (0x1, 0x03): "SESSION_SET_APP_CONFIG"
        case (0x1, 0x04): "SESSION_GET_APP_CONFIG"
        case (0x1, 0x05): "SESSION_GET_COUNT"
        case (0x1, 0x06): "SESSION_GET_STATE"
        case (0x1, 0x07): "SESSION_UPDATE_CONTROLLER_MULTICAST_LIST"
        case (0x1, 0x0B): "SESSION_QUERY_DATA_SIZE_IN_RANGING"
        case (0x2, 0x00): "SESSION_START"
        case (0x2, 0x01): "SESSION_STOP"
        case (0x2, 0x03): "SESSION_GET_RANGING_COUNT"
        case (0xB, 0x01): "QORVO_TEST_TX_CW"
        case (0xB, 0x02): "QORVO_TEST_PLLRF"
        case (0xE, 0x2A): "QORVO_SET_CALIBRATION"
        case (0xE, 0x2B): "QORVO_GET_CALIBRATION"
        case (0xF, 0x00): "QORVO_CALIB_RESET"
        default: nil
        }
    }
}
