/// The typed view of the app-config parameters a DS-TWR host sets (uci.md §4.1, §4.3).
///
/// `tlv` encodes one into the wire form; `init(_:)` decodes a `ConfigTLV`, checking its size and
/// value range, and keeps parameters it has no case for as `.other`.
public enum AppConfigParameter: Hashable, Sendable {
    case deviceType(DeviceType)
    case rangingRoundUsage(RangingRoundUsage)
    case stsConfig(STSConfig)
    case multiNodeMode(MultiNodeMode)
    case channelNumber(UInt8)
    case numberOfControlees(UInt8)
    case deviceMacAddress(MacAddress)
    case dstMacAddresses([MacAddress])
    /// In RSTU: 1200 RSTU = 1 ms.
    case slotDuration(UInt16)
    /// Milliseconds between ranging rounds.
    case rangingDuration(UInt32)
    case aoaResultRequest(AoAResultRequest)
    case deviceRole(DeviceRole)
    case rframeConfig(RFrameConfig)
    case rssiReporting(Bool)
    case preambleCodeIndex(UInt8)
    case sfdID(UInt8)
    case slotsPerRangingRound(UInt8)
    case prfMode(PRFMode)
    case scheduleMode(ScheduleMode)
    case macAddressMode(MacAddressMode)
    case vendorID(UInt16)
    /// Six bytes, wire order.
    case staticSTSIV([UInt8])
    case stsLength(STSLength)
    case resultReportConfig(UInt8)
    case enableDiagnostics(Bool)
    case hopping(Bool)
    case rangingRoundControl(UInt8)
    case other(ConfigTLV)

    /// The wire form.
    public var tlv: ConfigTLV {
        switch self {
        case let .deviceType(v): byte(.deviceType, v.rawValue)
        case let .rangingRoundUsage(v): byte(.rangingRoundUsage, v.rawValue)
        case let .stsConfig(v): byte(.stsConfig, v.rawValue)
        case let .multiNodeMode(v): byte(.multiNodeMode, v.rawValue)
        case let .channelNumber(v): byte(.channelNumber, v)
        case let .numberOfControlees(v): byte(.numberOfControlees, v)
        case let .deviceMacAddress(address): written(.deviceMacAddress) { address.encode(into: &$0) }
        case let .dstMacAddresses(addresses): written(.dstMacAddress) { out in for a in addresses { a.encode(into: &out) } }
        case let .slotDuration(v): written(.slotDuration) { $0.append16(v) }
        case let .rangingDuration(v): written(.rangingDuration) { $0.append32(v) }
        case let .aoaResultRequest(v): byte(.aoaResultReq, v.rawValue)
        case let .deviceRole(v): byte(.deviceRole, v.rawValue)
        case let .rframeConfig(v): byte(.rframeConfig, v.rawValue)
        case let .rssiReporting(v): byte(.rssiReporting, v ? 1 : 0)
        case let .preambleCodeIndex(v): byte(.preambleCodeIndex, v)
        case let .sfdID(v): byte(.sfdID, v)
        case let .slotsPerRangingRound(v): byte(.slotsPerRR, v)
        case let .prfMode(v): byte(.prfMode, v.rawValue)
        case let .scheduleMode(v): byte(.scheduleMode, v.rawValue)
        case let .macAddressMode(v): byte(.macAddressMode, v.rawValue)
        case let .vendorID(v): written(.vendorID) { $0.append16(v) }
        case let .staticSTSIV(v): ConfigTLV(id: AppConfigID.staticSTSIV.rawValue, value: v)
        case let .stsLength(v): byte(.stsLength, v.rawValue)
        case let .resultReportConfig(v): byte(.resultReportConfig, v)
        case let .enableDiagnostics(v): byte(.enableDiagnostics, v ? 1 : 0)
        case let .hopping(v): byte(.hoppingMode, v ? 1 : 0)
        case let .rangingRoundControl(v): byte(.rangingRoundControl, v)
        case let .other(tlv): tlv
        }
    }

    private func byte(_ id: AppConfigID, _ value: UInt8) -> ConfigTLV { ConfigTLV(id: id.rawValue, value: [value]) }

    /// A TLV whose value `write` appends.
    private func written(_ id: AppConfigID, _ write: (inout [UInt8]) -> Void) -> ConfigTLV {
        var value: [UInt8] = []
        write(&value)
        return ConfigTLV(id: id.rawValue, value: value)
    }

    /// Decodes a TLV, assuming short MAC addresses (the only mode QM33 supports) unless
    /// `macAddressMode` says otherwise.
    public init(_ tlv: ConfigTLV, macAddressing: MacAddressingMode = .short) throws(UCIDecodingError) {
        let id = AppConfigID(rawValue: tlv.id)
        if let sizes = id.allowedSizes, !sizes.contains(tlv.value.count) {
            throw .invalidValue(message: "app config \(id)", field: "length", value: tlv.value.count)
        }
        func enumValue<E: RawRepresentable<UInt8>>(_ type: E.Type) throws(UCIDecodingError) -> E {
            guard let value = E(rawValue: tlv.value[0]) else {
                throw .invalidValue(message: "app config \(id)", field: "value", value: Int(tlv.value[0]))
            }
            return value
        }
        var reader = ByteReader(tlv.value, message: "app config")
        switch id {
        case .deviceType: self = .deviceType(try enumValue(DeviceType.self))
        case .rangingRoundUsage: self = .rangingRoundUsage(try enumValue(RangingRoundUsage.self))
        case .stsConfig: self = .stsConfig(try enumValue(STSConfig.self))
        case .multiNodeMode: self = .multiNodeMode(try enumValue(MultiNodeMode.self))
        case .channelNumber: self = .channelNumber(tlv.value[0])
        case .numberOfControlees: self = .numberOfControlees(tlv.value[0])
        case .deviceMacAddress:
            self = .deviceMacAddress(tlv.value.count == 8 ? .extended(try reader.uint(8, "address")) : .short(try reader.u16("address")))
        case .dstMacAddress:
            let size = macAddressing.addressSize
            guard tlv.value.count % size == 0 else {
                throw .invalidValue(message: "app config \(id)", field: "length", value: tlv.value.count)
            }
            var addresses: [MacAddress] = []
            while !reader.isAtEnd { addresses.append(try MacAddress.read(&reader, mode: macAddressing, "address")) }
            self = .dstMacAddresses(addresses)
        case .slotDuration: self = .slotDuration(try reader.u16("value"))
        case .rangingDuration: self = .rangingDuration(try reader.u32("value"))
        case .aoaResultReq: self = .aoaResultRequest(try enumValue(AoAResultRequest.self))
        case .deviceRole: self = .deviceRole(try enumValue(DeviceRole.self))
        case .rframeConfig: self = .rframeConfig(try enumValue(RFrameConfig.self))
        case .rssiReporting: self = .rssiReporting(tlv.value[0] != 0)
        case .preambleCodeIndex: self = .preambleCodeIndex(tlv.value[0])
        case .sfdID: self = .sfdID(tlv.value[0])
        case .slotsPerRR: self = .slotsPerRangingRound(tlv.value[0])
        case .prfMode: self = .prfMode(try enumValue(PRFMode.self))
        case .scheduleMode: self = .scheduleMode(try enumValue(ScheduleMode.self))
        case .macAddressMode: self = .macAddressMode(try enumValue(MacAddressMode.self))
        case .vendorID: self = .vendorID(try reader.u16("value"))
        case .staticSTSIV: self = .staticSTSIV(tlv.value)
        case .stsLength: self = .stsLength(try enumValue(STSLength.self))
        case .resultReportConfig: self = .resultReportConfig(tlv.value[0])
        case .enableDiagnostics: self = .enableDiagnostics(tlv.value[0] != 0)
        case .hoppingMode: self = .hopping(tlv.value[0] != 0)
        case .rangingRoundControl: self = .rangingRoundControl(tlv.value[0])
        default: self = .other(tlv)
        }
    }
}

extension AppConfigParameter {
    /// The DS-TWR set for a controller/initiator ranging with `peers`, or a controlee/responder
    /// whose `peers` is its controller. With `air: .qorvo` it is the 18-parameter set QM33 SDK
    /// 1.1.1 accepts, in the order of the real capture (uci.md §4.3, §7 V6); other air
    /// parameters change the values and add HOPPING_MODE and RANGING_ROUND_CONTROL when they
    /// differ from the firmware's defaults. A controller with more than one peer runs
    /// one-to-many and states NUMBER_OF_CONTROLEES; a controlee of such a session passes
    /// `multiNode: .oneToMany`. `aoa` asks for angles (AOA_RESULT_REQ = 1).
    public static func dsTWR(role: DeviceType, ownAddress: UInt16, peers: [UInt16], channel: UInt8 = 9,
                             rangingDurationMilliseconds: UInt32 = 200, multiNode: MultiNodeMode? = nil,
                             air: AirParameters = .qorvo, aoa: Bool = false) -> [AppConfigParameter] {
        let controller = role == .controller
        let mode = multiNode ?? (peers.count > 1 ? .oneToMany : .unicast)
        var list: [AppConfigParameter] = [
            .deviceType(role),
            .deviceRole(controller ? .initiator : .responder),
            .multiNodeMode(mode),
        ]
        if controller && mode == .oneToMany { list.append(.numberOfControlees(UInt8(truncatingIfNeeded: peers.count))) }
        list += [
            .rangingRoundUsage(.dsTWRDeferred),
            .deviceMacAddress(.short(ownAddress)),
            .dstMacAddresses(peers.map { .short($0) }),
            .channelNumber(channel),
            .stsConfig(.staticSTS),
            .rframeConfig(.sp3),
            .scheduleMode(.timeScheduled),
            .preambleCodeIndex(air.preambleCodeIndex),
            .sfdID(2),
            .slotDuration(air.slotDurationRSTU),
            .rangingDuration(rangingDurationMilliseconds),
            .slotsPerRangingRound(air.slotsPerRound),
            .vendorID(air.sessionKeyInfo.vendorID),
            .staticSTSIV(air.sessionKeyInfo.staticIV),
            .stsLength(.symbols64),
        ]
        if air.hopping { list.append(.hopping(true)) }
        if let control = air.rangingRoundControl { list.append(.rangingRoundControl(control)) }
        if aoa { list.append(.aoaResultRequest(.all)) }
        return list
    }
}

extension AppConfigParameter {
    /// The set an iPhone's Nearby Interaction session expects of an accessory (apple-interop.md
    /// §4), in the order of the spec's vector: a unicast DS-TWR session with static STS, Apple's
    /// VENDOR_ID (0x004C) and the IV iOS chose, time-of-flight reports only (the accessory
    /// measures no angle), hopping as iOS says (never in 1.x), and iOS's RANGING_ROUND_CONTROL
    /// passed through. `phone` is the iPhone's address; `air` holds iOS's timing and key.
    public static func appleNearbyInteraction(role: DeviceType, ownAddress: UInt16, phone: UInt16, channel: UInt8,
                                              rangingDurationMilliseconds: UInt32, air: AirParameters) -> [AppConfigParameter] {
        let controller = role == .controller
        return [
            .deviceType(role),
            .deviceRole(controller ? .initiator : .responder),
            .multiNodeMode(.unicast),
            .rangingRoundUsage(.dsTWRDeferred),
            .deviceMacAddress(.short(ownAddress)),
            .dstMacAddresses([.short(phone)]),
            .channelNumber(channel),
            .stsConfig(.staticSTS),
            .rframeConfig(.sp3),
            .scheduleMode(.timeScheduled),
            .preambleCodeIndex(air.preambleCodeIndex),
            .sfdID(2),
            .slotDuration(air.slotDurationRSTU),
            .rangingDuration(rangingDurationMilliseconds),
            .slotsPerRangingRound(air.slotsPerRound),
            .vendorID(air.sessionKeyInfo.vendorID),
            .staticSTSIV(air.sessionKeyInfo.staticIV),
            .stsLength(.symbols64),
            .hopping(air.hopping),
            .rangingRoundControl(air.rangingRoundControl ?? 0x03),
            .resultReportConfig(0x01),
            .aoaResultRequest(.none),
        ]
    }
}
