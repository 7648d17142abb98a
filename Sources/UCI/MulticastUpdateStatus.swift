/// Per-controlee result of SESSION_UPDATE_CONTROLLER_MULTICAST_LIST (uci.md §3.5).
public struct MulticastUpdateStatus: NamedCode {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let ok: MulticastUpdateStatus = 0x00

    public static let names: [UInt8: String] = [
        0x00: "OK_MULTICAST_LIST_UPDATE", 0x01: "ERROR_MULTICAST_LIST_FULL", 0x02: "ERROR_KEY_FETCH_FAIL",
        0x03: "ERROR_SUB_SESSION_ID_NOT_FOUND", 0x04: "ERROR_SUB_SESSION_KEY_NOT_FOUND",
        0x05: "ERROR_SUB_SESSION_KEY_NOT_APPLICABLE", 0x06: "ERROR_SESSION_KEY_NOT_FOUND",
        0x07: "ERROR_ADDRESS_NOT_FOUND", 0x08: "ERROR_ADDRESS_ALREADY_PRESENT",
    ]
}

/// What a multicast-list update does (uci.md §2.2): add, delete, or add with a sub-session key.
public struct MulticastAction: NamedCode {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let add: MulticastAction = 0x00
    public static let delete: MulticastAction = 0x01
    public static let addWith16ByteSubSessionKey: MulticastAction = 0x02
    public static let addWith32ByteSubSessionKey: MulticastAction = 0x03

    /// Bytes of sub-session key each controlee entry carries for this action, nil if unknown.
    public var subSessionKeyLength: Int? {
        switch rawValue { case 0, 1: 0; case 2: 16; case 3: 32; default: nil }
    }

    public static let names: [UInt8: String] = [
        0x00: "ADD", 0x01: "DELETE", 0x02: "ADD_WITH_SHORT_SUB_SESSION_KEY", 0x03: "ADD_WITH_EXTENDED_SUB_SESSION_KEY",
    ]
}

/// The SESSION_INIT session type (uci.md §2.2). QM33 supports FiRa ranging (0x00) and device test mode.
public struct SessionType: NamedCode {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let firaRangingSession: SessionType = 0x00
    public static let deviceTestMode: SessionType = 0xD0

    public static let names: [UInt8: String] = [
        0x00: "FIRA_RANGING_SESSION", 0x01: "FIRA_RANGING_AND_IN_BAND_DATA_SESSION", 0x02: "FIRA_DATA_TRANSFER_SESSION",
        0x03: "FIRA_RANGING_ONLY_PHASE", 0x04: "FIRA_IN_BAND_DATA_PHASE", 0x05: "FIRA_RANGING_WITH_DATA_PHASE",
        0x9F: "FIRA_HUS_PRIMARY_SESSION", 0xA0: "CCC", 0xA1: "RADAR_SESSION", 0xA2: "ALIRO", 0xD0: "DEVICE_TEST_MODE",
    ]
}
