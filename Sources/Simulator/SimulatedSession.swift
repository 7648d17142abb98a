import UCI

/// One UWB session inside the simulated firmware: its handle, state, configuration and the
/// peers it ranges with.
struct SimulatedSession: Hashable, Sendable {
    let sessionID: UInt32
    let handle: UInt32
    var state: SessionState = .initialized
    /// Parameters the host set, by id, in wire form.
    var config: [UInt8: [UInt8]] = [:]
    /// Who is ranged each round: DST_MAC_ADDRESS, then edited by multicast-list updates.
    var peers: [UInt16] = []
    /// Rounds done; also the next SESSION_INFO_NTF sequence number.
    var roundCount: UInt32 = 0
    /// Device time of the next round while ACTIVE.
    var nextRoundTime: Double?
    /// When ranging last started, and rounds since then: round k is due at
    /// `rangingStart + k × interval`, computed afresh so that no rounding error accumulates.
    var rangingStart: Double = 0
    var roundsSinceStart: Int = 0

    init(sessionID: UInt32, handle: UInt32) {
        self.sessionID = sessionID
        self.handle = handle
    }

    /// The value the device uses: what the host set, else the firmware default.
    func value(_ id: AppConfigID) -> [UInt8]? { config[id.rawValue] ?? AppConfigRules.defaults[id.rawValue] }

    var isConfigured: Bool { AppConfigRules.requiredForIdle.allSatisfy { config[$0.rawValue] != nil } }

    var rangingDurationMilliseconds: UInt32 {
        guard let bytes = value(.rangingDuration),
              let parameter = try? AppConfigParameter(ConfigTLV(id: AppConfigID.rangingDuration.rawValue, value: bytes)),
              case let .rangingDuration(ms) = parameter else { return 200 }
        return ms
    }

    var isOneToMany: Bool { value(.multiNodeMode) == [MultiNodeMode.oneToMany.rawValue] }
    var wantsAngles: Bool { value(.aoaResultReq) != [AoAResultRequest.none.rawValue] }
    var reportsRSSI: Bool { (value(.rssiReporting)?.first ?? 0) != 0 }

    /// Applies an accepted parameter (length 0 = back to default).
    mutating func apply(_ tlv: ConfigTLV) {
        if tlv.value.isEmpty {
            config[tlv.id] = nil
            if tlv.id == AppConfigID.dstMacAddress.rawValue { peers = [] }
            return
        }
        config[tlv.id] = tlv.value
        if tlv.id == AppConfigID.dstMacAddress.rawValue,
           case let .dstMacAddresses(list)? = try? AppConfigParameter(tlv) {
            peers = list.compactMap { if case let .short(a) = $0 { a } else { nil } }
        }
    }
}
