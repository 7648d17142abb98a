// Value enums of the app-config parameters a DS-TWR session sets (uci.md §4.1, §4.3).

/// DEVICE_TYPE: who schedules the ranging rounds.
public enum DeviceType: UInt8, Hashable, Sendable, CaseIterable {
    case controlee = 0
    case controller = 1
}

/// DEVICE_ROLE: who sends the poll. The DWM3001C supports responder and initiator.
public enum DeviceRole: UInt8, Hashable, Sendable, CaseIterable {
    case responder = 0
    case initiator = 1
    case utSynchronizationAnchor = 2
    case utAnchor = 3
    case utTag = 4
    case advertiser = 5
    case observer = 6
    case dtAnchor = 7
    case dtTag = 8
}

/// RANGING_ROUND_USAGE: the ranging method.
public enum RangingRoundUsage: UInt8, Hashable, Sendable, CaseIterable {
    case owrUplinkTDoA = 0
    case ssTWRDeferred = 1
    case dsTWRDeferred = 2
    case ssTWRNonDeferred = 3
    case dsTWRNonDeferred = 4
    case owrDownlinkTDoA = 5
    case owrAoA = 6
    case essTWRContention = 7
    case adsTWRContention = 8
}

/// STS_CONFIG: how the scrambled timestamp sequence is keyed. QM33 supports 0, 3 and 4.
public enum STSConfig: UInt8, Hashable, Sendable, CaseIterable {
    case staticSTS = 0
    case dynamic = 1
    case dynamicWithResponderSubSessionKey = 2
    case provisioned = 3
    case provisionedWithResponderSubSessionKey = 4
}

/// MULTI_NODE_MODE: one-to-one or one controller with several controlees.
public enum MultiNodeMode: UInt8, Hashable, Sendable, CaseIterable {
    case unicast = 0
    case oneToMany = 1
    case manyToMany = 2
}

/// RFRAME_CONFIG: where the STS sits in the frame. QM33 ranges with SP1 or SP3.
public enum RFrameConfig: UInt8, Hashable, Sendable, CaseIterable {
    case sp0 = 0
    case sp1 = 1
    case sp3 = 3
}

/// SCHEDULE_MODE (AOSP "SCHEDULED_MODE").
public enum ScheduleMode: UInt8, Hashable, Sendable, CaseIterable {
    case contentionBased = 0
    case timeScheduled = 1
}

/// AOA_RESULT_REQ: which angles the device reports. QM33 accepts 0 and 1.
public enum AoAResultRequest: UInt8, Hashable, Sendable, CaseIterable {
    case none = 0
    case all = 1
    case azimuthOnly = 2
    case elevationOnly = 3
    case interleaved = 0xF0
}

/// STS_LENGTH in symbols.
public enum STSLength: UInt8, Hashable, Sendable, CaseIterable {
    case symbols32 = 0
    case symbols64 = 1
    case symbols128 = 2
}

/// PRF_MODE: base or higher pulse repetition frequency.
public enum PRFMode: UInt8, Hashable, Sendable, CaseIterable {
    case bprf62_4MHz = 0
    case hprf124_8MHz = 1
    case hprf249_6MHz = 2
}

/// MAC_ADDRESS_MODE. QM33 supports 2-byte addresses only.
public enum MacAddressMode: UInt8, Hashable, Sendable, CaseIterable {
    case short = 0
    case extendedWithShortHeader = 1
    case extended = 2
}
