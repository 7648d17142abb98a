/// A UCI notification (MT 3) from device to host.
public enum UCINotification: Hashable, Sendable {
    case coreDeviceStatus(DeviceState)
    case coreGenericError(Status)
    case sessionStatus(sessionHandle: UInt32, state: SessionState, reason: ReasonCode)
    case sessionUpdateControllerMulticastList(MulticastListUpdate)
    /// SESSION_INFO_NTF: a ranging round's measurements.
    case sessionInfo(SessionInfo)
    /// Qorvo's QORVO_FIRA_RANGE_DIAGNOSTICS_NTF.
    case rangeDiagnostics(RangeDiagnostics)
    case unknown(gid: UInt8, oid: UInt8, payload: [UInt8])

    public var opcode: Opcode {
        switch self {
        case .coreDeviceStatus: .coreDeviceStatus
        case .coreGenericError: .coreGenericError
        case .sessionStatus: .sessionStatus
        case .sessionUpdateControllerMulticastList: .sessionUpdateControllerMulticastList
        case .sessionInfo: .sessionInfo
        case .rangeDiagnostics: .qorvoRangeDiagnostics
        case let .unknown(gid, oid, _): Opcode(gid: gid, oid: oid)
        }
    }

    public var raw: RawMessage {
        var p: [UInt8] = []
        switch self {
        case let .coreDeviceStatus(state): p.append(state.rawValue)
        case let .coreGenericError(status): p.append(status.rawValue)
        case let .sessionStatus(h, state, reason): p.append32(h); p.append(state.rawValue); p.append(reason.rawValue)
        case let .sessionUpdateControllerMulticastList(update): update.encode(into: &p)
        case let .sessionInfo(info):
            p.reserveCapacity(SessionInfo.headerSize + 31 * info.twoWayMeasurements.count)
            info.encode(into: &p)
        case let .rangeDiagnostics(diagnostics): diagnostics.encode(into: &p)
        case let .unknown(_, _, payload): p = payload
        }
        let opcode = self.opcode
        return RawMessage(messageType: .notification, gid: opcode.gid, oid: opcode.oid, payload: p)
    }

    init(decoding raw: RawMessage) throws(UCIDecodingError) {
        let p = raw.payload
        switch Opcode(gid: raw.gid, oid: raw.oid) {
        // Ranging rounds first: nearly every notification is one.
        case .sessionInfo: self = .sessionInfo(try SessionInfo(decoding: p))
        case .coreDeviceStatus:
            var r = ByteReader(p, message: "CORE_DEVICE_STATUS_NTF")
            self = .coreDeviceStatus(DeviceState(rawValue: try r.u8("device_state"))); try r.expectEnd()
        case .coreGenericError:
            var r = ByteReader(p, message: "CORE_GENERIC_ERROR_NTF")
            self = .coreGenericError(Status(rawValue: try r.u8("status"))); try r.expectEnd()
        case .sessionStatus:
            var r = ByteReader(p, message: "SESSION_STATUS_NTF")
            self = .sessionStatus(sessionHandle: try r.u32("session_handle"),
                                  state: SessionState(rawValue: try r.u8("session_state")),
                                  reason: ReasonCode(rawValue: try r.u8("reason_code")))
            try r.expectEnd()
        case .sessionUpdateControllerMulticastList: self = .sessionUpdateControllerMulticastList(try MulticastListUpdate(decoding: p))
        case .qorvoRangeDiagnostics: self = .rangeDiagnostics(try RangeDiagnostics(decoding: p))
        default: self = .unknown(gid: raw.gid, oid: raw.oid, payload: p)
        }
    }
}
