/// A UCI status code (uci.md §3.1): in every response, in CORE_GENERIC_ERROR_NTF, and per
/// measurement in SESSION_INFO_NTF. Names follow Android's PDL, which the Qorvo headers match
/// except at 0x12 and 0x2A/0x2B (uci.md Q11).
public struct Status: NamedCode {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let ok: Status = 0x00
    public static let rejected: Status = 0x01
    public static let failed: Status = 0x02
    public static let syntaxError: Status = 0x03
    public static let invalidParam: Status = 0x04
    public static let invalidRange: Status = 0x05
    public static let invalidMessageSize: Status = 0x06
    public static let unknownGID: Status = 0x07
    public static let unknownOID: Status = 0x08
    public static let readOnly: Status = 0x09
    public static let commandRetry: Status = 0x0A
    public static let unknown: Status = 0x0B
    public static let notApplicable: Status = 0x0C
    public static let sessionNotExist: Status = 0x11
    public static let sessionActive: Status = 0x13
    public static let maxSessionsExceeded: Status = 0x14
    public static let sessionNotConfigured: Status = 0x15
    public static let okNegativeDistanceReport: Status = 0x1B
    public static let rangingTxFailed: Status = 0x20
    public static let rangingRxTimeout: Status = 0x21

    /// A success: plain OK, or OK with a negative distance in a ranging measurement.
    public var isSuccess: Bool { self == .ok || self == .okNegativeDistanceReport }

    public static let names: [UInt8: String] = [
        0x00: "OK", 0x01: "REJECTED", 0x02: "FAILED", 0x03: "SYNTAX_ERROR", 0x04: "INVALID_PARAM",
        0x05: "INVALID_RANGE", 0x06: "INVALID_MESSAGE_SIZE", 0x07: "UNKNOWN_GID", 0x08: "UNKNOWN_OID",
        0x09: "READ_ONLY", 0x0A: "COMMAND_RETRY", 0x0B: "UNKNOWN", 0x0C: "NOT_APPLICABLE",
        0x11: "ERROR_SESSION_NOT_EXIST", 0x12: "ERROR_SESSION_DUPLICATE", 0x13: "ERROR_SESSION_ACTIVE",
        0x14: "ERROR_MAX_SESSIONS_EXCEEDED", 0x15: "ERROR_SESSION_NOT_CONFIGURED",
        0x16: "ERROR_ACTIVE_SESSIONS_ONGOING", 0x17: "ERROR_MULTICAST_LIST_FULL",
        0x18: "ERROR_ADDRESS_NOT_FOUND", 0x19: "ERROR_ADDRESS_ALREADY_PRESENT",
        0x1A: "ERROR_UWB_INITIATION_TIME_TOO_OLD", 0x1B: "OK_NEGATIVE_DISTANCE_REPORT",
        0x20: "RANGING_TX_FAILED", 0x21: "RANGING_RX_TIMEOUT", 0x22: "RANGING_RX_PHY_DEC_FAILED",
        0x23: "RANGING_RX_PHY_TOA_FAILED", 0x24: "RANGING_RX_PHY_STS_FAILED", 0x25: "RANGING_RX_MAC_DEC_FAILED",
        0x26: "RANGING_RX_MAC_IE_DEC_FAILED", 0x27: "RANGING_RX_MAC_IE_MISSING",
        0x28: "ERROR_ROUND_INDEX_NOT_ACTIVATED", 0x29: "ERROR_NUMBER_OF_ACTIVE_RANGING_ROUNDS_EXCEEDED",
        0x2A: "ERROR_DL_TDOA_DEVICE_ADDRESS_NOT_MATCHING_IN_REPLY_TIME_LIST",
        0x30: "DATA_MAX_TX_PSDU_SIZE_EXCEEDED", 0x31: "DATA_RX_CRC_ERROR",
        0x50: "ERROR_CCC_SE_BUSY", 0x51: "ERROR_CCC_LIFECYCLE", 0x52: "ERROR_STOPPED_DUE_TO_OTHER_SESSION_CONFLICT",
        0x53: "ERROR_REGULATION_UWB_OFF",
    ]
}
