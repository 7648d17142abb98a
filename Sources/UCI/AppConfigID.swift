/// An application-configuration parameter id (SESSION_SET/GET_APP_CONFIG, uci.md §4.1), with
/// its FiRa name and the value size Android and Qorvo's host use.
public struct AppConfigID: NamedCode {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let deviceType: AppConfigID = 0x00
    public static let rangingRoundUsage: AppConfigID = 0x01
    public static let stsConfig: AppConfigID = 0x02
    public static let multiNodeMode: AppConfigID = 0x03
    public static let channelNumber: AppConfigID = 0x04
    public static let numberOfControlees: AppConfigID = 0x05
    public static let deviceMacAddress: AppConfigID = 0x06
    public static let dstMacAddress: AppConfigID = 0x07
    public static let slotDuration: AppConfigID = 0x08
    public static let rangingDuration: AppConfigID = 0x09
    public static let macFcsType: AppConfigID = 0x0B
    public static let rangingRoundControl: AppConfigID = 0x0C
    public static let aoaResultReq: AppConfigID = 0x0D
    public static let sessionInfoNtfConfig: AppConfigID = 0x0E
    public static let deviceRole: AppConfigID = 0x11
    public static let rframeConfig: AppConfigID = 0x12
    public static let rssiReporting: AppConfigID = 0x13
    public static let preambleCodeIndex: AppConfigID = 0x14
    public static let sfdID: AppConfigID = 0x15
    public static let psduDataRate: AppConfigID = 0x16
    public static let preambleDuration: AppConfigID = 0x17
    public static let slotsPerRR: AppConfigID = 0x1B
    public static let prfMode: AppConfigID = 0x1F
    public static let scheduleMode: AppConfigID = 0x22
    public static let keyRotationRate: AppConfigID = 0x24
    public static let sessionPriority: AppConfigID = 0x25
    public static let macAddressMode: AppConfigID = 0x26
    public static let vendorID: AppConfigID = 0x27
    public static let staticSTSIV: AppConfigID = 0x28
    public static let numberOfSTSSegments: AppConfigID = 0x29
    public static let maxRRRetry: AppConfigID = 0x2A
    public static let uwbInitiationTime: AppConfigID = 0x2B
    public static let hoppingMode: AppConfigID = 0x2C
    public static let blockStrideLength: AppConfigID = 0x2D
    public static let resultReportConfig: AppConfigID = 0x2E
    public static let maxNumberOfMeasurements: AppConfigID = 0x32
    public static let stsLength: AppConfigID = 0x35
    public static let enableDiagnostics: AppConfigID = 0xE8
    public static let diagsFrameReportsFields: AppConfigID = 0xE9

    public static let names: [UInt8: String] = [
        0x00: "DEVICE_TYPE", 0x01: "RANGING_ROUND_USAGE", 0x02: "STS_CONFIG", 0x03: "MULTI_NODE_MODE",
        0x04: "CHANNEL_NUMBER", 0x05: "NUMBER_OF_CONTROLEES", 0x06: "DEVICE_MAC_ADDRESS", 0x07: "DST_MAC_ADDRESS",
        0x08: "SLOT_DURATION", 0x09: "RANGING_DURATION", 0x0A: "STS_INDEX", 0x0B: "MAC_FCS_TYPE",
        0x0C: "RANGING_ROUND_CONTROL", 0x0D: "AOA_RESULT_REQ", 0x0E: "SESSION_INFO_NTF_CONFIG",
        0x0F: "NEAR_PROXIMITY_CONFIG", 0x10: "FAR_PROXIMITY_CONFIG", 0x11: "DEVICE_ROLE", 0x12: "RFRAME_CONFIG",
        0x13: "RSSI_REPORTING", 0x14: "PREAMBLE_CODE_INDEX", 0x15: "SFD_ID", 0x16: "PSDU_DATA_RATE",
        0x17: "PREAMBLE_DURATION", 0x18: "LINK_LAYER_MODE", 0x19: "DATA_REPETITION_COUNT",
        0x1A: "RANGING_TIME_STRUCT", 0x1B: "SLOTS_PER_RR", 0x1C: "TX_ADAPTIVE_PAYLOAD_POWER",
        0x1D: "AOA_BOUND_CONFIG", 0x1E: "RESPONDER_SLOT_INDEX", 0x1F: "PRF_MODE", 0x20: "CAP_SIZE_RANGE",
        0x21: "TX_JITTER_WINDOW_SIZE", 0x22: "SCHEDULE_MODE", 0x23: "KEY_ROTATION", 0x24: "KEY_ROTATION_RATE",
        0x25: "SESSION_PRIORITY", 0x26: "MAC_ADDRESS_MODE", 0x27: "VENDOR_ID", 0x28: "STATIC_STS_IV",
        0x29: "NUMBER_OF_STS_SEGMENTS", 0x2A: "MAX_RR_RETRY", 0x2B: "UWB_INITIATION_TIME", 0x2C: "HOPPING_MODE",
        0x2D: "BLOCK_STRIDE_LENGTH", 0x2E: "RESULT_REPORT_CONFIG", 0x2F: "IN_BAND_TERMINATION_ATTEMPT_COUNT",
        0x30: "SUB_SESSION_ID", 0x31: "BPRF_PHR_DATA_RATE", 0x32: "MAX_NUMBER_OF_MEASUREMENTS",
        0x35: "STS_LENGTH", 0x45: "SESSION_KEY", 0x46: "SUB_SESSION_KEY",
        0xE3: "NB_OF_RANGE_MEASUREMENTS", 0xE4: "NB_OF_AZIMUTH_MEASUREMENTS", 0xE5: "NB_OF_ELEVATION_MEASUREMENTS",
        0xE6: "RX_ANTENNA_SELECTION", 0xE7: "TX_ANTENNA_SELECTION", 0xE8: "ENABLE_DIAGNOSTICS",
        0xE9: "DIAGS_FRAME_REPORTS_FIELDS",
    ]

    /// The value sizes this codec checks; a parameter not listed here may have any size.
    /// DEVICE_MAC_ADDRESS and DST_MAC_ADDRESS depend on the MAC mode and the number of peers,
    /// UWB_INITIATION_TIME on the FiRa version (4 or 8 bytes), keys on their kind (16 or 32).
    public var allowedSizes: [Int]? {
        switch rawValue {
        case 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x0B, 0x0C, 0x0D, 0x0E, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
             0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1E, 0x1F, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x29, 0x2C,
             0x2D, 0x2E, 0x2F, 0x31, 0x35, 0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9:
            [1]
        case 0x08, 0x0F, 0x10, 0x20, 0x27, 0x2A, 0x32: [2]
        case 0x09, 0x0A, 0x30: [4]
        case 0x28: [6]
        case 0x1D: [8]
        case 0x2B: [4, 8]
        case 0x06: [2, 8]
        case 0x45, 0x46: [16, 32]
        default: nil
        }
    }
}
