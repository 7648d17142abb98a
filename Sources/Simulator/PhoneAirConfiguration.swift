import UCI

/// What a phone's own UWB chip is configured with, as far as a gateway has to match it to be
/// heard: the session id, the phone's and the gateway's addresses, and the over-the-air rows of
/// the chip's SESSION_SET_APP_CONFIG. Android phones (`PhoneRangingParameters`) and iPhones
/// (`IPhoneNearbySession`) both come down to this, and `mismatches` compares either with a
/// gateway session.
public struct PhoneAirConfiguration: Hashable, Sendable {
    public var sessionID: UInt32
    /// The phone's own address (its DEVICE_MAC_ADDRESS).
    public var address: UWBAddress
    /// The gateway, as the phone lists it in DST_MAC_ADDRESS.
    public var gatewayAddress: UWBAddress
    /// The chip's parameters that must agree with the gateway's. Local settings (AoA, RSSI,
    /// priority, report contents) are left out: they need not match anything.
    public var parameters: [AppConfigParameter]
    /// Whether a gateway that leaves RANGING_ROUND_CONTROL to the firmware default can be
    /// heard; when false, the gateway must set the phone's value.
    public var acceptsDefaultRoundControl: Bool

    public init(sessionID: UInt32, address: UWBAddress, gatewayAddress: UWBAddress, parameters: [AppConfigParameter],
                acceptsDefaultRoundControl: Bool) {
        self.sessionID = sessionID
        self.address = address
        self.gatewayAddress = gatewayAddress
        self.parameters = parameters
        self.acceptsDefaultRoundControl = acceptsDefaultRoundControl
    }

    /// Every over-the-air difference between this phone and a gateway session that ranges with
    /// session id `gatewaySessionID`, peer list `gatewayPeers` (DST_MAC_ADDRESS as edited by
    /// multicast updates) and parameter values `gatewayValue` (what the host set, else the
    /// firmware default; nil if neither). Empty when they can range.
    ///
    /// Roles must be complementary; the gateway's DEVICE_MAC_ADDRESS must be the phone's peer;
    /// the phone must be in the gateway's peer list, and be its only peer when the gateway is
    /// the controlee. Every other parameter must be equal, RANGING_ROUND_CONTROL only when set
    /// or when `acceptsDefaultRoundControl` is false.
    public func mismatches(gatewaySessionID: UInt32, gatewayPeers: [UInt16],
                           gatewayValue: (AppConfigID) -> [UInt8]?) -> [PhoneMismatch] {
        var found: [PhoneMismatch] = []
        if gatewaySessionID != sessionID {
            found.append(PhoneMismatch(parameter: "SESSION_ID", gateway: "\(gatewaySessionID)", phone: "\(sessionID)"))
        }
        for parameter in parameters {
            let tlv = parameter.tlv
            let id = AppConfigID(rawValue: tlv.id)
            let name = AppConfigID.names[tlv.id] ?? "\(id)"
            let gateway = gatewayValue(id)
            switch id {
            case .numberOfControlees:
                continue  // each end counts its own peers
            case .deviceType, .deviceRole:
                let wanted: [UInt8] = [tlv.value[0] == 0 ? 1 : 0]
                guard gateway != wanted else { continue }
                found.append(PhoneMismatch(parameter: name, gateway: Self.render(id, gateway), phone: Self.render(id, tlv.value),
                                           hint: gateway == tlv.value ? "same role on both ends" : nil))
            case .deviceMacAddress:
                // The phone's own address: the gateway must range with it.
                let own = address.shortAddress
                let gatewayIsControlee = gatewayValue(.deviceType) == [DeviceType.controlee.rawValue]
                let listed = gatewayIsControlee ? gatewayPeers == [own] : gatewayPeers.contains(own)
                guard !listed else { continue }
                let swapped = gatewayPeers.contains(address.byteSwapped.shortAddress)
                found.append(PhoneMismatch(parameter: AppConfigID.names[AppConfigID.dstMacAddress.rawValue]!,
                                           gateway: gatewayPeers.isEmpty ? "lists nothing"
                                               : "lists " + gatewayPeers.map(shortAddressText).joined(separator: ", "),
                                           phone: "is " + shortAddressText(own), hint: swapped ? "byte order?" : nil))
            case .dstMacAddress:
                // The phone's peer: the gateway's own address.
                let expected = gatewayAddress.shortAddress
                let own = gatewayValue(.deviceMacAddress)
                let actual = own.flatMap { $0.count == 2 ? UInt16($0[0]) | UInt16($0[1]) << 8 : nil }
                guard actual != expected else { continue }
                found.append(PhoneMismatch(parameter: AppConfigID.names[AppConfigID.deviceMacAddress.rawValue]!,
                                           gateway: actual.map(shortAddressText) ?? Self.render(.deviceMacAddress, own),
                                           phone: "expects " + shortAddressText(expected),
                                           hint: actual == gatewayAddress.byteSwapped.shortAddress ? "byte order?" : nil))
            case .rangingRoundControl where gateway == nil && acceptsDefaultRoundControl:
                continue
            default:
                guard gateway != tlv.value else { continue }
                let swapped = id == .vendorID && gateway == tlv.value.reversed()
                found.append(PhoneMismatch(parameter: name, gateway: Self.render(id, gateway), phone: Self.render(id, tlv.value),
                                           hint: swapped ? "byte order?" : nil))
            }
        }
        return found
    }

    /// The comparison with a simulated session's effective values.
    func mismatches(with session: SimulatedSession) -> [PhoneMismatch] {
        mismatches(gatewaySessionID: session.sessionID, gatewayPeers: session.peers, gatewayValue: session.value)
    }

    /// A parameter value as the diagnosis prints it.
    static func render(_ id: AppConfigID, _ value: [UInt8]?) -> String {
        guard let value, !value.isEmpty else { return "not set" }
        let hex = value.map(hexByte).joined(separator: " ")
        switch id {
        case .deviceType where value.count == 1:
            return value[0] == 1 ? "controller" : value[0] == 0 ? "controlee" : "\(value[0])"
        case .deviceRole where value.count == 1:
            return value[0] == 1 ? "initiator" : value[0] == 0 ? "responder" : "\(value[0])"
        case .slotDuration where value.count == 2:
            return "\(UInt16(value[0]) | UInt16(value[1]) << 8) RSTU"
        case .rangingDuration where value.count == 4:
            return "\(value.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) ms"
        case .rangingRoundControl where value.count == 1:
            return "0x" + hexByte(value[0])
        case .vendorID, .staticSTSIV:
            return hex
        default:
            return value.count == 1 ? "\(value[0])" : hex
        }
    }
}
