import UCI

/// How the firmware judges SESSION_SET_APP_CONFIG parameters, one by one, and when a session
/// counts as configured.
///
/// Per parameter: an id the firmware does not know, a wrong size or a value outside what a
/// QM33 accepts goes into the failed list with INVALID_PARAM; the others are applied. A length
/// of 0 resets the parameter to its default (uci.md §2.2, [QAPI]).
enum AppConfigRules {
    /// What the firmware requires before a session leaves INIT for IDLE (and may start).
    ///
    /// uci.md Q4: the five uqt "mandatory" parameters plus DST_MAC and channel were not enough
    /// on QM33 SDK 1.1.1; adding STS_CONFIG, RFRAME_CONFIG, SCHEDULE_MODE, PREAMBLE_CODE_INDEX,
    /// SFD_ID, SLOT_DURATION, RANGING_DURATION and SLOTS_PER_RR lifted the gate. VENDOR_ID,
    /// STATIC_STS_IV and STS_LENGTH complete the 18-parameter set of §4.3 but were added for
    /// interoperability with the peer, not because the device gated on them, so they are not
    /// required here.
    static let requiredForIdle: [AppConfigID] = [
        .deviceType, .deviceRole, .multiNodeMode, .rangingRoundUsage, .deviceMacAddress, .dstMacAddress,
        .channelNumber, .stsConfig, .rframeConfig, .scheduleMode, .preambleCodeIndex, .sfdID,
        .slotDuration, .rangingDuration, .slotsPerRR,
    ]

    /// Defaults the device reports for parameters the host never set (uci.md §4.1, QM33 column).
    static let defaults: [UInt8: [UInt8]] = [
        AppConfigID.channelNumber.rawValue: [9],
        AppConfigID.numberOfControlees.rawValue: [1],
        AppConfigID.slotDuration.rawValue: [0x60, 0x09],
        AppConfigID.rangingDuration.rawValue: [0xC8, 0, 0, 0],
        AppConfigID.aoaResultReq.rawValue: [1],
        AppConfigID.sessionInfoNtfConfig.rawValue: [1],
        AppConfigID.rframeConfig.rawValue: [3],
        AppConfigID.rssiReporting.rawValue: [0],
        AppConfigID.preambleCodeIndex.rawValue: [10],
        AppConfigID.sfdID.rawValue: [2],
        AppConfigID.slotsPerRR.rawValue: [25],
        AppConfigID.prfMode.rawValue: [0],
        AppConfigID.scheduleMode.rawValue: [1],
        AppConfigID.macAddressMode.rawValue: [0],
        AppConfigID.stsLength.rawValue: [1],
        // The PHY settings a host rarely sets, and hopping: what a peer (a phone) compares
        // against when the host leaves them alone (uci.md §4.1; HOPPING_MODE off).
        AppConfigID.macFcsType.rawValue: [0],
        AppConfigID.psduDataRate.rawValue: [0],
        AppConfigID.preambleDuration.rawValue: [1],
        rangingTimeStruct.rawValue: [1],
        bprfPHRDataRate.rawValue: [0],
        AppConfigID.hoppingMode.rawValue: [0],
    ]

    /// Ids the UCI module has no name constant for.
    static let rangingTimeStruct: AppConfigID = 0x1A
    static let bprfPHRDataRate: AppConfigID = 0x31

    /// Checks one parameter; nil means accepted.
    static func rejection(of tlv: ConfigTLV) -> Status? {
        guard AppConfigID.names[tlv.id] != nil else { return .invalidParam }
        if tlv.value.isEmpty { return nil }  // reset to default
        guard let parameter = try? AppConfigParameter(tlv) else { return .invalidParam }
        switch parameter {
        case let .channelNumber(channel) where channel != 5 && channel != 9: return .invalidParam
        case let .deviceMacAddress(address) where address.size != 2: return .invalidParam
        case let .dstMacAddresses(list) where list.isEmpty || list.count > maximumPeers: return .invalidParam
        case let .rangingDuration(milliseconds) where milliseconds == 0: return .invalidParam
        case let .macAddressMode(mode) where mode != .short: return .invalidParam
        case let .aoaResultRequest(request) where request != .none && request != .all: return .invalidParam
        case let .numberOfControlees(count) where count == 0 || Int(count) > maximumPeers: return .invalidParam
        case let .deviceRole(role) where role != .initiator && role != .responder: return .invalidParam
        default: return nil
        }
    }

    /// FIRA_RESPONDERS_MAX on QM33 (uci.md §4.1).
    static let maximumPeers = 8
}
