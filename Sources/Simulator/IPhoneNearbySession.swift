import UCI

/// What iOS makes of an accessory's configuration data when an app runs
/// `NISession.run(NINearbyAccessoryConfiguration(data:))` (apple-interop.md §1–§4): the
/// session iOS chooses, the shareable configuration data it hands the app for the accessory,
/// and what the iPhone's own UWB chip then puts on the air.
///
/// iOS chooses like the iPhone of the spec's capture: a random session id and STS IV, country
/// "US", channel 9, preamble 11, RANGING_ROUND_CONTROL 0x03, 25 ppm. Its timing follows the
/// configuration data: in 1.0 and 1.1, the preferred update rate (6 slots of 3600 RSTU, every
/// 198 ms for user interactive and automatic, 792 ms for infrequent); in 2.0, what the
/// accessory requests, as it stands (whether iOS bends a request it dislikes is not in our
/// sources, and the gateway's checks are what should catch one it cannot range with).
///
/// A real iPhone picks a random address of its own per session; the simulator takes the
/// scenario peer's address instead, so that the phone has a place in the scene.
public struct IPhoneNearbySession: Hashable, Sendable {
    /// What the app handed iOS.
    public let accessory: AccessoryConfigurationData
    /// What iOS uses, and sends the app for the accessory.
    public var shareable: ShareableConfigurationData

    /// The iPhone's address (`shareable.phoneAddress`).
    public var address: UWBAddress {
        let bytes = shareable.phoneAddress
        return UWBAddress(bytes.first ?? 0, bytes.dropFirst().first ?? 0)
    }

    /// The bytes the app passes on to the accessory.
    public var shareableConfigurationData: [UInt8] { shareable.bytes }

    /// Runs a session for `accessoryConfigurationData` as iOS does, for the iPhone at `address`;
    /// `random` draws the session id and the IV. Throws when the data is not accessory
    /// configuration data iOS could read.
    public init(accessoryConfigurationData: [UInt8], address: UWBAddress,
                using random: inout some RandomNumberGenerator) throws(AccessoryConfigurationData.Problem) {
        let accessory = try AccessoryConfigurationData(bytes: accessoryConfigurationData)
        let version: ShareableConfigurationData.Version = switch accessory.version {
        case .v1_0: .v1_0
        case .v1_1: .v1_1
        case .v2_0: .v2_0
        }
        var slots: UInt16 = 6, slotDuration: UInt16 = 3600, hopping = false
        var interval: UInt16 = accessory.preferredUpdateRate == .infrequent ? 792 : 198
        if version == .v2_0 {
            slots = accessory.requested.slotsPerRound
            slotDuration = accessory.requested.slotDurationRSTU
            interval = accessory.requested.rangingIntervalMilliseconds
            hopping = accessory.requested.hopping
        }
        let iv = (0..<6).map { _ in UInt8.random(in: 0...UInt8.max, using: &random) }
        let shareable = ShareableConfigurationData(
            version: version, countryCode: Array("US".utf8), sessionID: UInt32.random(in: 1...UInt32.max, using: &random),
            preambleCodeIndex: 11, channel: 9, slotsPerRound: slots, slotDurationRSTU: slotDuration,
            rangingIntervalMilliseconds: interval, rangingRoundControl: 0x03, staticSTSIV: iv,
            phoneAddress: [address.first, address.second], clockDriftPPM: version == .v1_0 ? nil : 25, hopping: hopping)
        self.init(accessory: accessory, shareable: shareable)
    }

    /// A session whose choices are given, as a captured iPhone made them.
    public init(accessory: AccessoryConfigurationData, shareable: ShareableConfigurationData) {
        self.accessory = accessory
        self.shareable = shareable
    }

    // MARK: The iPhone's chip

    /// The accessory as the iPhone addresses it.
    public var accessoryAddress: UWBAddress {
        UWBAddress(accessory.address.first ?? 0, accessory.address.dropFirst().first ?? 0)
    }

    /// The complement of the accessory's role: a responder accessory is the iPhone's controlee.
    public var deviceType: DeviceType { accessory.role == .responder ? .controller : .controlee }

    /// The over-the-air rows of the SESSION_SET_APP_CONFIG the iPhone's chip gets: a FiRa
    /// unicast DS-TWR (deferred) session with static STS and Apple's vendor id, with the values
    /// of the shareable data (spec §4, seen from the iPhone's side), and the QM33 defaults the
    /// spec leaves unsent because they are Apple's values already.
    public var appConfiguration: [AppConfigParameter] {
        let controller = deviceType == .controller
        return [
            .deviceType(deviceType),
            .deviceRole(controller ? .initiator : .responder),
            .multiNodeMode(.unicast),
            .rangingRoundUsage(.dsTWRDeferred),
            .stsConfig(.staticSTS),
            .deviceMacAddress(.short(address.shortAddress)),
            .dstMacAddresses([.short(accessoryAddress.shortAddress)]),
            .channelNumber(shareable.channel),
            .preambleCodeIndex(shareable.preambleCodeIndex),
            .rframeConfig(.sp3),
            .sfdID(2),
            .scheduleMode(.timeScheduled),
            .slotDuration(shareable.slotDurationRSTU),
            .rangingDuration(UInt32(shareable.rangingIntervalMilliseconds)),
            // One byte on the UCI wire: a request beyond it cannot be configured as asked.
            .slotsPerRangingRound(UInt8(clamping: shareable.slotsPerRound)),
            .vendorID(Self.appleVendorID),
            .staticSTSIV(shareable.staticSTSIV),
            .stsLength(.symbols64),
            // "Hopping is disabled in the NI protocol" before 2.0 (`[Q-FIRANIQ]`).
            .hopping(shareable.version == .v2_0 && shareable.hopping),
            .rangingRoundControl(shareable.rangingRoundControl),
            .other(ConfigTLV(id: AppConfigID.preambleDuration.rawValue, value: [1])),
            .prfMode(.bprf62_4MHz),
            .macAddressMode(.short),
            .other(ConfigTLV(id: AppConfigID.psduDataRate.rawValue, value: [0])),
            .other(ConfigTLV(id: AppConfigRules.bprfPHRDataRate.rawValue, value: [0])),
            .other(ConfigTLV(id: AppConfigRules.rangingTimeStruct.rawValue, value: [1])),
        ]
    }

    /// Apple's Bluetooth company id, VENDOR_ID `4C 00` on the wire.
    public static let appleVendorID: UInt16 = 0x004C

    /// What the chip puts on the air, for the comparison with a gateway session. iOS sends
    /// its RANGING_ROUND_CONTROL for the accessory to pass through (spec §4): a gateway that
    /// leaves it to the firmware's undocumented default is not known to be heard.
    public var airConfiguration: PhoneAirConfiguration {
        PhoneAirConfiguration(sessionID: shareable.sessionID, address: address, gatewayAddress: accessoryAddress,
                              parameters: appConfiguration, acceptsDefaultRoundControl: false)
    }

    /// Checks what the simulated chip cannot be configured with: a shareable structure edited
    /// by hand into the wrong shape. `field` names the session in messages.
    func validate(field: String = "iphone") throws(ScenarioError) {
        for (name, bytes, size) in [("phone_address", shareable.phoneAddress, 2), ("static_sts_iv", shareable.staticSTSIV, 6)]
        where bytes.count != size {
            throw .invalidValue(field: field + ".shareable." + name, value: bytes.map(hexByte).joined(separator: " "),
                                expected: "\(size) bytes")
        }
    }
}
