/// A UCI control message's group (GID) and opcode (OID), uci.md §2.2: the one table of them. A
/// command and its response share theirs; `MessageName` names them, the decoders dispatch on
/// them and every message reports its own.
public struct Opcode: Hashable, Sendable {
    public let gid: UInt8
    public let oid: UInt8

    // CORE (GID 0)
    public static let coreDeviceReset = Opcode(gid: GroupID.core, oid: 0x00)
    public static let coreDeviceStatus = Opcode(gid: GroupID.core, oid: 0x01)
    public static let coreGetDeviceInfo = Opcode(gid: GroupID.core, oid: 0x02)
    public static let coreGetCapsInfo = Opcode(gid: GroupID.core, oid: 0x03)
    public static let coreSetConfig = Opcode(gid: GroupID.core, oid: 0x04)
    public static let coreGetConfig = Opcode(gid: GroupID.core, oid: 0x05)
    public static let coreDeviceSuspend = Opcode(gid: GroupID.core, oid: 0x06)
    public static let coreGenericError = Opcode(gid: GroupID.core, oid: 0x07)
    public static let coreQueryUWBSTimestamp = Opcode(gid: GroupID.core, oid: 0x08)

    // SESSION_CONFIG (GID 1)
    public static let sessionInit = Opcode(gid: GroupID.sessionConfig, oid: 0x00)
    public static let sessionDeinit = Opcode(gid: GroupID.sessionConfig, oid: 0x01)
    public static let sessionStatus = Opcode(gid: GroupID.sessionConfig, oid: 0x02)
    public static let sessionSetAppConfig = Opcode(gid: GroupID.sessionConfig, oid: 0x03)
    public static let sessionGetAppConfig = Opcode(gid: GroupID.sessionConfig, oid: 0x04)
    public static let sessionGetCount = Opcode(gid: GroupID.sessionConfig, oid: 0x05)
    public static let sessionGetState = Opcode(gid: GroupID.sessionConfig, oid: 0x06)
    public static let sessionUpdateControllerMulticastList = Opcode(gid: GroupID.sessionConfig, oid: 0x07)
    public static let sessionQueryDataSizeInRanging = Opcode(gid: GroupID.sessionConfig, oid: 0x0B)

    // SESSION_CONTROL (GID 2)
    public static let sessionStart = Opcode(gid: GroupID.sessionControl, oid: 0x00)
    public static let sessionInfo = Opcode(gid: GroupID.sessionControl, oid: 0x00)
    public static let sessionStop = Opcode(gid: GroupID.sessionControl, oid: 0x01)
    public static let sessionGetRangingCount = Opcode(gid: GroupID.sessionControl, oid: 0x03)
    public static let sessionDataCredit = Opcode(gid: GroupID.sessionControl, oid: 0x04)
    public static let sessionDataTransferStatus = Opcode(gid: GroupID.sessionControl, oid: 0x05)

    // Qorvo's vendor groups (uci.md §6.3)
    public static let qorvoTestDebug = Opcode(gid: GroupID.qorvoExtension2, oid: 0x00)
    public static let qorvoTestTxCW = Opcode(gid: GroupID.qorvoExtension2, oid: 0x01)
    public static let qorvoTestPLLRF = Opcode(gid: GroupID.qorvoExtension2, oid: 0x02)
    public static let qorvoRangeDiagnostics = Opcode(gid: GroupID.qorvoExtension2, oid: 0x03)
    public static let qorvoSetCalibration = Opcode(gid: 0xE, oid: 0x2A)
    public static let qorvoGetCalibration = Opcode(gid: 0xE, oid: 0x2B)
    public static let qorvoCalibReset = Opcode(gid: 0xF, oid: 0x00)

    /// The names of command/response pairs, without their `_CMD`/`_RSP` suffix.
    static let commandNames: [Opcode: String] = [
        .coreDeviceReset: "CORE_DEVICE_RESET", .coreGetDeviceInfo: "CORE_GET_DEVICE_INFO",
        .coreGetCapsInfo: "CORE_GET_CAPS_INFO", .coreSetConfig: "CORE_SET_CONFIG", .coreGetConfig: "CORE_GET_CONFIG",
        .coreDeviceSuspend: "CORE_DEVICE_SUSPEND", .coreQueryUWBSTimestamp: "CORE_QUERY_UWBS_TIMESTAMP",
        .sessionInit: "SESSION_INIT", .sessionDeinit: "SESSION_DEINIT", .sessionSetAppConfig: "SESSION_SET_APP_CONFIG",
        .sessionGetAppConfig: "SESSION_GET_APP_CONFIG", .sessionGetCount: "SESSION_GET_COUNT",
        .sessionGetState: "SESSION_GET_STATE", .sessionUpdateControllerMulticastList: "SESSION_UPDATE_CONTROLLER_MULTICAST_LIST",
        .sessionQueryDataSizeInRanging: "SESSION_QUERY_DATA_SIZE_IN_RANGING",
        .sessionStart: "SESSION_START", .sessionStop: "SESSION_STOP", .sessionGetRangingCount: "SESSION_GET_RANGING_COUNT",
        .qorvoTestTxCW: "QORVO_TEST_TX_CW", .qorvoTestPLLRF: "QORVO_TEST_PLLRF",
        .qorvoSetCalibration: "QORVO_SET_CALIBRATION", .qorvoGetCalibration: "QORVO_GET_CALIBRATION",
        .qorvoCalibReset: "QORVO_CALIB_RESET",
    ]

    /// The names of notifications, with their `_NTF` suffix.
    static let notificationNames: [Opcode: String] = [
        .coreDeviceStatus: "CORE_DEVICE_STATUS_NTF", .coreGenericError: "CORE_GENERIC_ERROR_NTF",
        .sessionStatus: "SESSION_STATUS_NTF", .sessionUpdateControllerMulticastList: "SESSION_UPDATE_CONTROLLER_MULTICAST_LIST_NTF",
        .sessionInfo: "SESSION_INFO_NTF", .sessionDataCredit: "SESSION_DATA_CREDIT_NTF",
        .sessionDataTransferStatus: "SESSION_DATA_TRANSFER_STATUS_NTF",
        .qorvoTestDebug: "QORVO_TEST_DEBUG_NTF", .qorvoTestPLLRF: "QORVO_TEST_PLLRF_NTF",
        .qorvoRangeDiagnostics: "QORVO_FIRA_RANGE_DIAGNOSTICS_NTF",
    ]
}
