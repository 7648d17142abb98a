/// A controlee entry of SESSION_UPDATE_CONTROLLER_MULTICAST_LIST_CMD: its short address, its
/// sub-session id and, for actions 2 and 3, a 16- or 32-byte sub-session key.
public struct Controlee: Hashable, Sendable {
    public var shortAddress: UInt16
    public var subSessionID: UInt32
    public var subSessionKey: [UInt8]

    public init(shortAddress: UInt16, subSessionID: UInt32 = 0, subSessionKey: [UInt8] = []) {
        self.shortAddress = shortAddress
        self.subSessionID = subSessionID
        self.subSessionKey = subSessionKey
    }
}

/// The per-controlee result in the FiRa 2.0 multicast-list response and in the notification.
public struct ControleeStatus: Hashable, Sendable {
    public var shortAddress: UInt16
    /// Present in the FiRa 1.x notification only.
    public var subSessionID: UInt32?
    public var status: MulticastUpdateStatus

    public init(shortAddress: UInt16, subSessionID: UInt32? = nil, status: MulticastUpdateStatus) {
        self.shortAddress = shortAddress
        self.subSessionID = subSessionID
        self.status = status
    }
}

/// SESSION_UPDATE_CONTROLLER_MULTICAST_LIST_NTF in either layout (uci.md §2.2):
/// FiRa 1.x `session_id(4) remaining(1) n(1) n×[mac(2) sub_session_id(4) status(1)]`,
/// FiRa 2.0 `session_handle(4) n(1) n×[mac(2) status(1)]`. The length tells them apart.
public struct MulticastListUpdate: Hashable, Sendable {
    public var sessionHandle: UInt32
    /// FiRa 1.x only.
    public var remainingMulticastListSize: UInt8?
    public var controlees: [ControleeStatus]

    public init(sessionHandle: UInt32, remainingMulticastListSize: UInt8? = nil, controlees: [ControleeStatus]) {
        self.sessionHandle = sessionHandle
        self.remainingMulticastListSize = remainingMulticastListSize
        self.controlees = controlees
    }

    init(decoding payload: [UInt8]) throws(UCIDecodingError) {
        var reader = ByteReader(payload, message: "SESSION_UPDATE_CONTROLLER_MULTICAST_LIST_NTF")
        sessionHandle = try reader.u32("session_handle")
        if payload.count >= 5, payload.count == 5 + 3 * Int(payload[4]) {
            remainingMulticastListSize = nil
            let count = try reader.count("number of controlees", minimumEntrySize: 3)
            controlees = []
            for _ in 0..<count {
                controlees.append(ControleeStatus(shortAddress: try reader.u16("mac_address"),
                                                  status: MulticastUpdateStatus(rawValue: try reader.u8("status"))))
            }
        } else {
            remainingMulticastListSize = try reader.u8("remaining_multicast_list_size")
            let count = try reader.count("number of controlees", minimumEntrySize: 7)
            controlees = []
            for _ in 0..<count {
                controlees.append(ControleeStatus(shortAddress: try reader.u16("mac_address"),
                                                  subSessionID: try reader.u32("sub_session_id"),
                                                  status: MulticastUpdateStatus(rawValue: try reader.u8("status"))))
            }
        }
        try reader.expectEnd()
    }

    func encode(into bytes: inout [UInt8]) {
        bytes.append32(sessionHandle)
        if let remaining = remainingMulticastListSize {
            bytes.append(remaining)
            bytes.append(UInt8(truncatingIfNeeded: controlees.count))
            for c in controlees {
                bytes.append16(c.shortAddress)
                bytes.append32(c.subSessionID ?? 0)
                bytes.append(c.status.rawValue)
            }
        } else {
            bytes.append(UInt8(truncatingIfNeeded: controlees.count))
            for c in controlees {
                bytes.append16(c.shortAddress)
                bytes.append(c.status.rawValue)
            }
        }
    }
}
