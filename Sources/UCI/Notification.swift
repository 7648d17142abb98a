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

    public var opcode: (gid: UInt8, oid: UInt8) {
        switch self {
        case .coreDeviceStatus: (0, 0x01)
        case .coreGenericError: (0, 0x07)
        case .sessionStatus: (1, 0x02)
        case .sessionUpdateControllerMulticastList: (1, 0x07)
        case .sessionInfo: (2, 0x00)
        case .rangeDiagnostics: (GroupID.qorvoExtension2, 0x03)
        case let .unknown(gid, oid, _): (gid, oid)
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
        let (gid, oid) = opcode
        return RawMessage(messageType: .notification, gid: gid, oid: oid, payload: p)
    }

    init(decoding raw: RawMessage) throws(UCIDecodingError) {
        let p = raw.payload
        switch (raw.gid, raw.oid) {
        case (0, 0x01):
            var r = ByteReader(p, message: "CORE_DEVICE_STATUS_NTF")
            self = .coreDeviceStatus(DeviceState(rawValue: try r.u8("device_state"))); try r.expectEnd()
        case (0, 0x07):
            var r = ByteReader(p, message: "CORE_GENERIC_ERROR_NTF")
            self = .coreGenericError(Status(rawValue: try r.u8("status"))); try r.expectEnd()
        case (1, 0x02):
            var r = ByteReader(p, message: "SESSION_STATUS_NTF")
            self = .sessionStatus(sessionHandle: try r.u32("session_handle"),
                                  state: SessionState(rawValue: try r.u8("session_state")),
                                  reason: ReasonCode(rawValue: try r.u8("reason_code")))
            try r.expectEnd()
        case (1, 0x07): self = .sessionUpdateControllerMulticastList(try MulticastListUpdate(decoding: p))
        case (2, 0x00): self = .sessionInfo(try SessionInfo(decoding: p))
        case (GroupID.qorvoExtension2, 0x03): self = .rangeDiagnostics(try RangeDiagnostics(decoding: p))
        default: self = .unknown(gid: raw.gid, oid: raw.oid, payload: p)
        }
    }
}
