import UCI

/// What an Android phone app passes to Jetpack (`androidx.core.uwb.RangingParameters`) after
/// its out-of-band exchange with the gateway, and from that what the phone's own UWB chip is
/// configured with (android-interop.md §2–§7).
///
/// Only the static-STS configs a phone can range with against a DWM3001C are modelled: Jetpack
/// config 1 (`CONFIG_UNICAST_DS_TWR`) and 2 (`CONFIG_MULTICAST_DS_TWR`), in Jetpack's numbering.
/// `mismatches` compares the result with a gateway session's values: every difference there
/// is one the real phone would answer with silence.
public struct PhoneRangingParameters: Hashable, Sendable {
    /// Which Jetpack session scope the app opened. A controller is always the initiator and a
    /// controlee the responder: Jetpack offers no other combination (§2, §7).
    public enum Role: String, Hashable, Sendable, CaseIterable {
        case controller, controlee
    }

    /// `RangingParameters.updateRateType`: picks the ranging interval (§3).
    public enum UpdateRate: String, Hashable, Sendable, CaseIterable {
        case automatic, frequent, infrequent
    }

    public var role: Role
    /// Jetpack numbering: 1 unicast, 2 one-to-many.
    public var configID: UInt8
    /// The phone's own address (`scope.localAddress`), a new random one per session scope.
    public var address: UWBAddress
    /// The gateway, as the app lists it in `peerDevices`.
    public var gatewayAddress: UWBAddress
    public var sessionID: UInt32
    /// VENDOR_ID and STATIC_STS_IV, wire order (§5).
    public var sessionKeyInfo: SessionKeyInfo
    /// The complex channel: channel 5 or 9, BPRF preamble 9–12.
    public var channel: UInt8
    public var preambleIndex: UInt8
    public var updateRate: UpdateRate
    /// 1 or 2 (Jetpack's default).
    public var slotDurationMilliseconds: UInt8

    public static let configIDs: ClosedRange<UInt8> = 1...2
    public static let channels: Set<UInt8> = [5, 9]
    public static let slotDurations: Set<UInt8> = [1, 2]

    public init(role: Role, configID: UInt8 = 1, address: UWBAddress, gatewayAddress: UWBAddress, sessionID: UInt32,
                sessionKeyInfo: SessionKeyInfo, channel: UInt8 = 9, preambleIndex: UInt8 = 9,
                updateRate: UpdateRate = .automatic, slotDurationMilliseconds: UInt8 = 2) {
        self.role = role
        self.configID = configID
        self.address = address
        self.gatewayAddress = gatewayAddress
        self.sessionID = sessionID
        self.sessionKeyInfo = sessionKeyInfo
        self.channel = channel
        self.preambleIndex = preambleIndex
        self.updateRate = updateRate
        self.slotDurationMilliseconds = slotDurationMilliseconds
    }

    // MARK: Derived

    /// Interval per update rate (§3): config 1 240/120/600 ms, config 2 200/120/600 ms.
    public var rangingIntervalMilliseconds: UInt32 {
        switch updateRate {
        case .automatic: configID == 1 ? 240 : 200
        case .frequent: 120
        case .infrequent: 600
        }
    }

    /// 6 for unicast, 20 for one-to-many (§2).
    public var slotsPerRound: UInt8 { configID == 1 ? 6 : 20 }
    public var slotDurationRSTU: UInt16 { UInt16(slotDurationMilliseconds) * 1200 }
    public var multiNodeMode: MultiNodeMode { configID == 1 ? .unicast : .oneToMany }
    public var deviceType: DeviceType { role == .controller ? .controller : .controlee }

    /// What the gateway should send beyond channel, roles, addresses and interval to be heard
    /// by this phone: `AppConfigParameter.dsTWR(…, air:)` with these matches.
    public var matchingAirParameters: AirParameters {
        AirParameters(preambleCodeIndex: preambleIndex, slotsPerRound: slotsPerRound, slotDurationRSTU: slotDurationRSTU,
                      hopping: true, rangingRoundControl: Self.rangingRoundControl, sessionKeyInfo: sessionKeyInfo)
    }

    /// The over-the-air rows of the SESSION_SET_APP_CONFIG the phone's own chip gets (§4), in
    /// the order Android's encoder writes them. Local settings (AoA, RSSI, priority, report
    /// contents) are left out: they need not match anything on the gateway.
    public var appConfiguration: [AppConfigParameter] {
        [
            .rangingRoundUsage(.dsTWRDeferred),
            .stsConfig(.staticSTS),
            .multiNodeMode(multiNodeMode),
            .channelNumber(channel),
            .deviceMacAddress(.short(address.shortAddress)),
            .slotDuration(slotDurationRSTU),
            .other(ConfigTLV(id: AppConfigID.macFcsType.rawValue, value: [0])),
            .rangingRoundControl(Self.rangingRoundControl),
            .deviceRole(role == .controller ? .initiator : .responder),
            .rframeConfig(.sp3),
            .preambleCodeIndex(preambleIndex),
            .sfdID(2),
            .other(ConfigTLV(id: AppConfigID.psduDataRate.rawValue, value: [0])),
            .other(ConfigTLV(id: AppConfigID.preambleDuration.rawValue, value: [1])),
            .other(ConfigTLV(id: AppConfigRules.rangingTimeStruct.rawValue, value: [1])),
            .slotsPerRangingRound(slotsPerRound),
            .prfMode(.bprf62_4MHz),
            .scheduleMode(.timeScheduled),
            .macAddressMode(.short),
            .hopping(true),
            .other(ConfigTLV(id: AppConfigRules.bprfPHRDataRate.rawValue, value: [0])),
            .stsLength(.symbols64),
            .rangingDuration(rangingIntervalMilliseconds),
            .deviceType(deviceType),
            .numberOfControlees(1),
            .dstMacAddresses([.short(gatewayAddress.shortAddress)]),
            .vendorID(sessionKeyInfo.vendorID),
            .staticSTSIV(sessionKeyInfo.staticIV),
        ]
    }

    /// Result-report and control messages (§4).
    static let rangingRoundControl: UInt8 = 0x03

    // MARK: Validation

    /// Checks what Jetpack itself would refuse, or what this model cannot play; `field` names
    /// the parameters in messages (`peers[0x0001].phone`).
    public func validate(field: String = "phone") throws(ScenarioError) {
        guard Self.configIDs.contains(configID) else {
            throw .outOfRange(field: field + ".config_id", value: Double(configID),
                              expected: "1 (unicast) or 2 (one-to-many), Jetpack numbering")
        }
        guard Self.channels.contains(channel) else {
            throw .outOfRange(field: field + ".channel", value: Double(channel), expected: "5 or 9")
        }
        guard AirParameters.preambleCodeIndices.contains(preambleIndex) else {
            throw .outOfRange(field: field + ".preamble_index", value: Double(preambleIndex), expected: "9…12 (BPRF)")
        }
        guard Self.slotDurations.contains(slotDurationMilliseconds) else {
            throw .outOfRange(field: field + ".slot_duration_ms", value: Double(slotDurationMilliseconds), expected: "1 or 2")
        }
        // 0 makes the AOSP backend derive an id of its own, which the gateway cannot know;
        // above Int32.max it does not fit Jetpack's `Int sessionId` (§7).
        guard sessionID >= 1, sessionID <= UInt32(Int32.max) else {
            throw .outOfRange(field: field + ".session_id", value: Double(sessionID), expected: "1…2147483647")
        }
        guard address != gatewayAddress else {
            throw .invalidValue(field: field + ".address", value: address.description, expected: "an address other than the gateway's")
        }
    }

    // MARK: Comparison

    /// What the phone's chip puts on the air, for the comparison with a gateway session.
    ///
    /// RANGING_ROUND_CONTROL left unset counts as compatible: its QM33 default is not
    /// documented (uci.md §4.1, android-interop.md §10.3) and Pixel phones ranged with a
    /// DWM3001C that never set it (`[SASO]`); a value that is set must be Android's 0x03.
    public var airConfiguration: PhoneAirConfiguration {
        PhoneAirConfiguration(sessionID: sessionID, address: address, gatewayAddress: gatewayAddress,
                              parameters: appConfiguration, acceptsDefaultRoundControl: true)
    }

    /// Every over-the-air difference between this phone and a gateway session
    /// (`PhoneAirConfiguration.mismatches`). Empty when they can range.
    public func mismatches(gatewaySessionID: UInt32, gatewayPeers: [UInt16],
                           gatewayValue: (AppConfigID) -> [UInt8]?) -> [PhoneMismatch] {
        airConfiguration.mismatches(gatewaySessionID: gatewaySessionID, gatewayPeers: gatewayPeers, gatewayValue: gatewayValue)
    }
}
