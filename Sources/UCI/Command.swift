/// A UCI command (MT 1) from host to device, for the groups a ranging host uses (uci.md §2.2).
public enum UCICommand: Hashable, Sendable {
    /// CORE_DEVICE_RESET; Qorvo firmware wants reset config 0x00 (uci.md Q6).
    case coreDeviceReset(resetConfig: UInt8 = 0)
    case coreGetDeviceInfo
    case coreGetCapsInfo
    case coreSetConfig([ConfigTLV])
    case coreGetConfig([UInt8])
    case coreQueryUWBSTimestamp
    case sessionInit(sessionID: UInt32, sessionType: SessionType = .firaRangingSession)
    case sessionDeinit(sessionHandle: UInt32)
    case sessionSetAppConfig(sessionHandle: UInt32, parameters: [ConfigTLV])
    case sessionGetAppConfig(sessionHandle: UInt32, ids: [UInt8])
    case sessionGetCount
    case sessionGetState(sessionHandle: UInt32)
    case sessionUpdateControllerMulticastList(sessionHandle: UInt32, action: MulticastAction, controlees: [Controlee])
    case sessionStart(sessionHandle: UInt32)
    case sessionStop(sessionHandle: UInt32)
    case sessionGetRangingCount(sessionHandle: UInt32)
    /// Any other GID/OID, payload kept.
    case unknown(gid: UInt8, oid: UInt8, payload: [UInt8])

    /// SESSION_SET_APP_CONFIG from typed parameters.
    public static func sessionSetAppConfig(sessionHandle: UInt32, _ parameters: [AppConfigParameter]) -> UCICommand {
        .sessionSetAppConfig(sessionHandle: sessionHandle, parameters: parameters.map(\.tlv))
    }

    /// GID and OID of this command; its response has the same pair.
    public var opcode: Opcode {
        switch self {
        case .coreDeviceReset: .coreDeviceReset
        case .coreGetDeviceInfo: .coreGetDeviceInfo
        case .coreGetCapsInfo: .coreGetCapsInfo
        case .coreSetConfig: .coreSetConfig
        case .coreGetConfig: .coreGetConfig
        case .coreQueryUWBSTimestamp: .coreQueryUWBSTimestamp
        case .sessionInit: .sessionInit
        case .sessionDeinit: .sessionDeinit
        case .sessionSetAppConfig: .sessionSetAppConfig
        case .sessionGetAppConfig: .sessionGetAppConfig
        case .sessionGetCount: .sessionGetCount
        case .sessionGetState: .sessionGetState
        case .sessionUpdateControllerMulticastList: .sessionUpdateControllerMulticastList
        case .sessionStart: .sessionStart
        case .sessionStop: .sessionStop
        case .sessionGetRangingCount: .sessionGetRangingCount
        case let .unknown(gid, oid, _): Opcode(gid: gid, oid: oid)
        }
    }

    public var raw: RawMessage {
        var p: [UInt8] = []
        switch self {
        case let .coreDeviceReset(config): p.append(config)
        case .coreGetDeviceInfo, .coreGetCapsInfo, .coreQueryUWBSTimestamp, .sessionGetCount: break
        case let .coreSetConfig(list): ConfigTLV.encodeList(list, into: &p)
        case let .coreGetConfig(ids):
            p.append(UInt8(truncatingIfNeeded: ids.count)); p.append(contentsOf: ids)
        case let .sessionInit(id, type): p.append32(id); p.append(type.rawValue)
        case let .sessionDeinit(h), let .sessionGetState(h), let .sessionStart(h), let .sessionStop(h),
             let .sessionGetRangingCount(h):
            p.append32(h)
        case let .sessionSetAppConfig(h, list): p.append32(h); ConfigTLV.encodeList(list, into: &p)
        case let .sessionGetAppConfig(h, ids):
            p.append32(h); p.append(UInt8(truncatingIfNeeded: ids.count)); p.append(contentsOf: ids)
        case let .sessionUpdateControllerMulticastList(h, action, controlees):
            p.append32(h)
            p.append(action.rawValue)
            p.append(UInt8(truncatingIfNeeded: controlees.count))
            for c in controlees {
                p.append16(c.shortAddress)
                p.append32(c.subSessionID)
                p.append(contentsOf: c.subSessionKey)
            }
        case let .unknown(_, _, payload): p = payload
        }
        let opcode = self.opcode
        return RawMessage(messageType: .command, gid: opcode.gid, oid: opcode.oid, payload: p)
    }

    init(decoding raw: RawMessage) throws(UCIDecodingError) {
        let p = raw.payload
        switch Opcode(gid: raw.gid, oid: raw.oid) {
        case .coreDeviceReset:
            var r = ByteReader(p, message: "CORE_DEVICE_RESET_CMD")
            self = .coreDeviceReset(resetConfig: try r.u8("reset_config")); try r.expectEnd()
        case .coreGetDeviceInfo: try Self.empty(p, "CORE_GET_DEVICE_INFO_CMD"); self = .coreGetDeviceInfo
        case .coreGetCapsInfo: try Self.empty(p, "CORE_GET_CAPS_INFO_CMD"); self = .coreGetCapsInfo
        case .coreSetConfig:
            var r = ByteReader(p, message: "CORE_SET_CONFIG_CMD")
            self = .coreSetConfig(try ConfigTLV.readList(&r, count: "number of parameters")); try r.expectEnd()
        case .coreGetConfig:
            var r = ByteReader(p, message: "CORE_GET_CONFIG_CMD")
            let n = try r.count("number of parameters", minimumEntrySize: 1)
            self = .coreGetConfig(try r.bytes(n, "parameter ids")); try r.expectEnd()
        case .coreQueryUWBSTimestamp: try Self.empty(p, "CORE_QUERY_UWBS_TIMESTAMP_CMD"); self = .coreQueryUWBSTimestamp
        case .sessionInit:
            var r = ByteReader(p, message: "SESSION_INIT_CMD")
            self = .sessionInit(sessionID: try r.u32("session_id"), sessionType: SessionType(rawValue: try r.u8("session_type")))
            try r.expectEnd()
        case .sessionDeinit: self = .sessionDeinit(sessionHandle: try Self.handle(p, "SESSION_DEINIT_CMD"))
        case .sessionSetAppConfig:
            var r = ByteReader(p, message: "SESSION_SET_APP_CONFIG_CMD")
            let h = try r.u32("session_handle")
            self = .sessionSetAppConfig(sessionHandle: h, parameters: try ConfigTLV.readList(&r, count: "number of parameters"))
            try r.expectEnd()
        case .sessionGetAppConfig:
            var r = ByteReader(p, message: "SESSION_GET_APP_CONFIG_CMD")
            let h = try r.u32("session_handle")
            let n = try r.count("number of parameters", minimumEntrySize: 1)
            self = .sessionGetAppConfig(sessionHandle: h, ids: try r.bytes(n, "parameter ids")); try r.expectEnd()
        case .sessionGetCount: try Self.empty(p, "SESSION_GET_COUNT_CMD"); self = .sessionGetCount
        case .sessionGetState: self = .sessionGetState(sessionHandle: try Self.handle(p, "SESSION_GET_STATE_CMD"))
        case .sessionUpdateControllerMulticastList:
            var r = ByteReader(p, message: "SESSION_UPDATE_CONTROLLER_MULTICAST_LIST_CMD")
            let h = try r.u32("session_handle")
            let actionByte = try r.u8("action")
            let action = MulticastAction(rawValue: actionByte)
            guard let keyLength = action.subSessionKeyLength else {
                throw .invalidValue(message: "SESSION_UPDATE_CONTROLLER_MULTICAST_LIST_CMD", field: "action", value: Int(actionByte))
            }
            let n = try r.count("number of controlees", minimumEntrySize: 6 + keyLength)
            var list: [Controlee] = []
            for _ in 0..<n {
                list.append(Controlee(shortAddress: try r.u16("short_address"), subSessionID: try r.u32("sub_session_id"),
                                      subSessionKey: try r.bytes(keyLength, "sub_session_key")))
            }
            try r.expectEnd()
            self = .sessionUpdateControllerMulticastList(sessionHandle: h, action: action, controlees: list)
        case .sessionStart: self = .sessionStart(sessionHandle: try Self.handle(p, "SESSION_START_CMD"))
        case .sessionStop: self = .sessionStop(sessionHandle: try Self.handle(p, "SESSION_STOP_CMD"))
        case .sessionGetRangingCount: self = .sessionGetRangingCount(sessionHandle: try Self.handle(p, "SESSION_GET_RANGING_COUNT_CMD"))
        default: self = .unknown(gid: raw.gid, oid: raw.oid, payload: p)
        }
    }

    private static func empty(_ p: [UInt8], _ message: StaticString) throws(UCIDecodingError) {
        try ByteReader(p, message: message).expectEnd()
    }

    private static func handle(_ p: [UInt8], _ message: StaticString) throws(UCIDecodingError) -> UInt32 {
        var r = ByteReader(p, message: message)
        let h = try r.u32("session_handle")
        try r.expectEnd()
        return h
    }
}
