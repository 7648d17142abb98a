/// A UCI response (MT 2) from device to host.
///
/// A response whose status is not OK may carry the status byte alone (uci.md §7 V9); its other
/// fields are then nil or empty rather than a decoding error.
public enum UCIResponse: Hashable, Sendable {
    case coreDeviceReset(status: Status)
    case coreGetDeviceInfo(status: Status, info: DeviceInfo?)
    case coreGetCapsInfo(status: Status, capabilities: [ConfigTLV])
    case coreSetConfig(status: Status, failed: [ConfigStatus])
    case coreGetConfig(status: Status, parameters: [ConfigTLV])
    case coreQueryUWBSTimestamp(status: Status, timestamp: UInt64?)
    /// `sessionHandle` is nil in the FiRa 1.x form (status only): the session id is the handle.
    case sessionInit(status: Status, sessionHandle: UInt32?)
    case sessionDeinit(status: Status)
    case sessionSetAppConfig(status: Status, failed: [ConfigStatus])
    case sessionGetAppConfig(status: Status, parameters: [ConfigTLV])
    case sessionGetCount(status: Status, count: UInt8?)
    case sessionGetState(status: Status, state: SessionState?)
    /// `controlees` is nil in the FiRa 1.x form (status only).
    case sessionUpdateControllerMulticastList(status: Status, controlees: [ControleeStatus]?)
    case sessionStart(status: Status)
    case sessionStop(status: Status)
    case sessionGetRangingCount(status: Status, count: UInt32?)
    case unknown(gid: UInt8, oid: UInt8, payload: [UInt8])

    /// Every known response starts with a status; an unknown one reports its first byte, if any.
    public var status: Status? { header.status }

    /// The GID/OID pair, which is its command's.
    public var opcode: Opcode { header.opcode }

    /// The one list of the cases for the two fields every response has in its header.
    private var header: (opcode: Opcode, status: Status?) {
        switch self {
        case let .coreDeviceReset(s): (.coreDeviceReset, s)
        case let .coreGetDeviceInfo(s, _): (.coreGetDeviceInfo, s)
        case let .coreGetCapsInfo(s, _): (.coreGetCapsInfo, s)
        case let .coreSetConfig(s, _): (.coreSetConfig, s)
        case let .coreGetConfig(s, _): (.coreGetConfig, s)
        case let .coreQueryUWBSTimestamp(s, _): (.coreQueryUWBSTimestamp, s)
        case let .sessionInit(s, _): (.sessionInit, s)
        case let .sessionDeinit(s): (.sessionDeinit, s)
        case let .sessionSetAppConfig(s, _): (.sessionSetAppConfig, s)
        case let .sessionGetAppConfig(s, _): (.sessionGetAppConfig, s)
        case let .sessionGetCount(s, _): (.sessionGetCount, s)
        case let .sessionGetState(s, _): (.sessionGetState, s)
        case let .sessionUpdateControllerMulticastList(s, _): (.sessionUpdateControllerMulticastList, s)
        case let .sessionStart(s): (.sessionStart, s)
        case let .sessionStop(s): (.sessionStop, s)
        case let .sessionGetRangingCount(s, _): (.sessionGetRangingCount, s)
        case let .unknown(gid, oid, payload): (Opcode(gid: gid, oid: oid), payload.first.map(Status.init(rawValue:)))
        }
    }

    public var raw: RawMessage {
        var p: [UInt8] = []
        if let status { p.append(status.rawValue) }  // an unknown response's payload replaces it below
        switch self {
        case .coreDeviceReset, .sessionDeinit, .sessionStart, .sessionStop: break
        case let .coreGetDeviceInfo(_, info):
            if let info {
                info.uciVersion.encode(into: &p); info.macVersion.encode(into: &p)
                info.phyVersion.encode(into: &p); info.uciTestVersion.encode(into: &p)
                p.append(UInt8(truncatingIfNeeded: info.vendorInfo.count)); p.append(contentsOf: info.vendorInfo)
            }
        case let .coreGetCapsInfo(_, list), let .coreGetConfig(_, list), let .sessionGetAppConfig(_, list):
            if !list.isEmpty || status == .ok { ConfigTLV.encodeList(list, into: &p) }
        case let .coreSetConfig(_, failed), let .sessionSetAppConfig(_, failed):
            p.append(UInt8(truncatingIfNeeded: failed.count))
            for f in failed { p.append(f.id); p.append(f.status.rawValue) }
        case let .coreQueryUWBSTimestamp(_, t): if let t { p.appendLE(t, count: 8) }
        case let .sessionInit(_, h): if let h { p.append32(h) }
        case let .sessionGetCount(_, c): if let c { p.append(c) }
        case let .sessionGetState(_, s): if let s { p.append(s.rawValue) }
        case let .sessionUpdateControllerMulticastList(_, list):
            if let list {
                p.append(UInt8(truncatingIfNeeded: list.count))
                for c in list { p.append16(c.shortAddress); p.append(c.status.rawValue) }
            }
        case let .sessionGetRangingCount(_, c): if let c { p.append32(c) }
        case let .unknown(_, _, payload): p = payload
        }
        let opcode = self.opcode
        return RawMessage(messageType: .response, gid: opcode.gid, oid: opcode.oid, payload: p)
    }

    init(decoding raw: RawMessage) throws(UCIDecodingError) {
        let p = raw.payload
        let name: StaticString
        switch Opcode(gid: raw.gid, oid: raw.oid) {
        case .coreDeviceReset: name = "CORE_DEVICE_RESET_RSP"
        case .coreGetDeviceInfo: name = "CORE_GET_DEVICE_INFO_RSP"
        case .coreGetCapsInfo: name = "CORE_GET_CAPS_INFO_RSP"
        case .coreSetConfig: name = "CORE_SET_CONFIG_RSP"
        case .coreGetConfig: name = "CORE_GET_CONFIG_RSP"
        case .coreQueryUWBSTimestamp: name = "CORE_QUERY_UWBS_TIMESTAMP_RSP"
        case .sessionInit: name = "SESSION_INIT_RSP"
        case .sessionDeinit: name = "SESSION_DEINIT_RSP"
        case .sessionSetAppConfig: name = "SESSION_SET_APP_CONFIG_RSP"
        case .sessionGetAppConfig: name = "SESSION_GET_APP_CONFIG_RSP"
        case .sessionGetCount: name = "SESSION_GET_COUNT_RSP"
        case .sessionGetState: name = "SESSION_GET_STATE_RSP"
        case .sessionUpdateControllerMulticastList: name = "SESSION_UPDATE_CONTROLLER_MULTICAST_LIST_RSP"
        case .sessionStart: name = "SESSION_START_RSP"
        case .sessionStop: name = "SESSION_STOP_RSP"
        case .sessionGetRangingCount: name = "SESSION_GET_RANGING_COUNT_RSP"
        default:
            self = .unknown(gid: raw.gid, oid: raw.oid, payload: p)
            return
        }
        var r = ByteReader(p, message: name)
        let status = Status(rawValue: try r.u8("status"))
        // Error responses may stop after the status byte.
        let bare = r.isAtEnd && status != .ok
        switch Opcode(gid: raw.gid, oid: raw.oid) {
        case .coreDeviceReset: self = .coreDeviceReset(status: status)
        case .coreGetDeviceInfo:
            if bare { self = .coreGetDeviceInfo(status: status, info: nil); break }
            let uci = try UCIVersion(&r, "uci_version"), mac = try UCIVersion(&r, "mac_version")
            let phy = try UCIVersion(&r, "phy_version"), test = try UCIVersion(&r, "uci_test_version")
            let vendorLength = Int(try r.u8("vendor_info length"))
            let vendor = try r.bytes(vendorLength, "vendor_info")
            self = .coreGetDeviceInfo(status: status, info: DeviceInfo(uciVersion: uci, macVersion: mac, phyVersion: phy,
                                                                       uciTestVersion: test, vendorInfo: vendor))
        case .coreGetCapsInfo:
            self = .coreGetCapsInfo(status: status, capabilities: bare ? [] : try ConfigTLV.readList(&r, count: "number of capabilities"))
        case .coreSetConfig:
            self = .coreSetConfig(status: status, failed: bare ? [] : try Self.failedList(&r))
        case .coreGetConfig:
            self = .coreGetConfig(status: status, parameters: bare ? [] : try ConfigTLV.readList(&r, count: "number of parameters"))
        case .coreQueryUWBSTimestamp:
            self = .coreQueryUWBSTimestamp(status: status, timestamp: bare ? nil : try r.uint(8, "timestamp"))
        case .sessionInit:
            self = .sessionInit(status: status, sessionHandle: r.isAtEnd ? nil : try r.u32("session_handle"))
        case .sessionDeinit: self = .sessionDeinit(status: status)
        case .sessionSetAppConfig:
            self = .sessionSetAppConfig(status: status, failed: bare ? [] : try Self.failedList(&r))
        case .sessionGetAppConfig:
            self = .sessionGetAppConfig(status: status, parameters: bare ? [] : try ConfigTLV.readList(&r, count: "number of parameters"))
        case .sessionGetCount: self = .sessionGetCount(status: status, count: bare ? nil : try r.u8("session_count"))
        case .sessionGetState:
            self = .sessionGetState(status: status, state: bare ? nil : SessionState(rawValue: try r.u8("session_state")))
        case .sessionUpdateControllerMulticastList:
            if r.isAtEnd {
                self = .sessionUpdateControllerMulticastList(status: status, controlees: nil)
            } else {
                let n = try r.count("number of controlees", minimumEntrySize: 3)
                var list: [ControleeStatus] = []
                for _ in 0..<n {
                    list.append(ControleeStatus(shortAddress: try r.u16("mac_address"),
                                                status: MulticastUpdateStatus(rawValue: try r.u8("status"))))
                }
                self = .sessionUpdateControllerMulticastList(status: status, controlees: list)
            }
        case .sessionStart: self = .sessionStart(status: status)
        case .sessionStop: self = .sessionStop(status: status)
        default: // (2, 0x03)
            self = .sessionGetRangingCount(status: status, count: bare ? nil : try r.u32("ranging_count"))
        }
        try r.expectEnd()
    }

    private static func failedList(_ r: inout ByteReader) throws(UCIDecodingError) -> [ConfigStatus] {
        let n = try r.count("number of failed parameters", minimumEntrySize: 2)
        var list: [ConfigStatus] = []
        for _ in 0..<n { list.append(ConfigStatus(id: try r.u8("parameter id"), status: Status(rawValue: try r.u8("parameter status")))) }
        return list
    }
}
