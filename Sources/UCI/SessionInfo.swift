/// SESSION_INFO_NTF (FiRa 1.x: RANGE_DATA_NTF), GID 2 OID 0: one ranging round's results
/// (uci.md §5). A 25-byte header, N measurements whose layout depends on the measurement type
/// and the MAC addressing mode, then optional vendor data.
public struct SessionInfo: Hashable, Sendable {
    /// Per round, from 0.
    public var sequenceNumber: UInt32
    /// FiRa 2.0 session handle; FiRa 1.x session id. JSON calls it `session_id`.
    public var sessionHandle: UInt32
    public var rcrIndicator: UInt8
    /// Milliseconds.
    public var currentRangingInterval: UInt32
    public var measurementType: RangingMeasurementType
    public var macAddressingMode: MacAddressingMode
    /// FiRa 2.0: HUS primary session id, 0 if none (RFU in 1.x).
    public var husPrimarySessionID: UInt32
    public var measurements: RangingMeasurements
    /// Bytes after the last measurement: vendor data, not an error.
    public var vendorData: [UInt8]

    public static let headerSize = 25

    public init(sequenceNumber: UInt32, sessionHandle: UInt32, rcrIndicator: UInt8 = 0, currentRangingInterval: UInt32,
                macAddressingMode: MacAddressingMode = .short, husPrimarySessionID: UInt32 = 0,
                measurements: RangingMeasurements, vendorData: [UInt8] = []) {
        self.sequenceNumber = sequenceNumber
        self.sessionHandle = sessionHandle
        self.rcrIndicator = rcrIndicator
        self.currentRangingInterval = currentRangingInterval
        self.measurementType = measurements.type
        self.macAddressingMode = macAddressingMode
        self.husPrimarySessionID = husPrimarySessionID
        self.measurements = measurements
        self.vendorData = vendorData
    }

    /// The TWR measurements, empty for other types.
    public var twoWayMeasurements: [TwoWayRangingMeasurement] {
        if case let .twoWay(list) = measurements { return list }
        return []
    }

    init(decoding payload: [UInt8]) throws(UCIDecodingError) {
        var reader = ByteReader(payload, message: "SESSION_INFO_NTF")
        sequenceNumber = try reader.u32("sequence_number")
        sessionHandle = try reader.u32("session_id")
        rcrIndicator = try reader.u8("rcr_indicator")
        currentRangingInterval = try reader.u32("ranging_interval")
        measurementType = RangingMeasurementType(rawValue: try reader.u8("measurement_type"))
        try reader.skip(1, "RFU")
        let modeByte = try reader.u8("mac_addressing_mode")
        guard let mode = MacAddressingMode(rawValue: modeByte) else {
            throw .invalidValue(message: "SESSION_INFO_NTF", field: "mac_addressing_mode", value: Int(modeByte))
        }
        macAddressingMode = mode
        husPrimarySessionID = try reader.u32("hus_primary_session_id")
        try reader.skip(4, "RFU")
        switch measurementType {
        case .twoWay:
            let count = try reader.count("number of measurements", minimumEntrySize: TwoWayRangingMeasurement.size(mode))
            var list: [TwoWayRangingMeasurement] = []
            list.reserveCapacity(count)
            for _ in 0..<count { list.append(try TwoWayRangingMeasurement(&reader, mode: mode)) }
            measurements = .twoWay(list)
        case .oneWayAoA:
            let count = try reader.count("number of measurements", minimumEntrySize: OneWayAoAMeasurement.size(mode))
            var list: [OneWayAoAMeasurement] = []
            for _ in 0..<count { list.append(try OneWayAoAMeasurement(&reader, mode: mode)) }
            measurements = .oneWayAoA(list)
        case .downlinkTDoA:
            let count = try reader.count("number of measurements", minimumEntrySize: mode.addressSize + 35)
            var list: [DownlinkTDoAMeasurement] = []
            for _ in 0..<count { list.append(try DownlinkTDoAMeasurement(&reader, mode: mode)) }
            measurements = .downlinkTDoA(list)
        default:
            // UL-TDoA and unknown types: no public layout; keep the bytes.
            measurements = .other(type: measurementType, bytes: reader.rest())
        }
        vendorData = reader.rest()
    }

    func encode(into bytes: inout [UInt8]) {
        bytes.append32(sequenceNumber)
        bytes.append32(sessionHandle)
        bytes.append(rcrIndicator)
        bytes.append32(currentRangingInterval)
        bytes.append(measurements.type.rawValue)
        bytes.append(0)
        bytes.append(macAddressingMode.rawValue)
        bytes.append32(husPrimarySessionID)
        bytes.append32(0)
        switch measurements {
        case let .twoWay(list):
            bytes.append(UInt8(truncatingIfNeeded: list.count))
            for m in list { m.encode(into: &bytes) }
        case let .oneWayAoA(list):
            bytes.append(UInt8(truncatingIfNeeded: list.count))
            for m in list { m.encode(into: &bytes) }
        case let .downlinkTDoA(list):
            bytes.append(UInt8(truncatingIfNeeded: list.count))
            for m in list { m.encode(into: &bytes) }
        case let .other(_, raw):
            bytes.append(contentsOf: raw)
        }
        bytes.append(contentsOf: vendorData)
    }
}

/// The measurements of one ranging round, by measurement type.
public enum RangingMeasurements: Hashable, Sendable {
    case twoWay([TwoWayRangingMeasurement])
    case oneWayAoA([OneWayAoAMeasurement])
    case downlinkTDoA([DownlinkTDoAMeasurement])
    /// A type without a public layout (UL-TDoA): the bytes from the measurement count on.
    case other(type: RangingMeasurementType, bytes: [UInt8])

    public var type: RangingMeasurementType {
        switch self {
        case .twoWay: .twoWay
        case .oneWayAoA: .oneWayAoA
        case .downlinkTDoA: .downlinkTDoA
        case let .other(type, _): type
        }
    }
}

/// The ranging measurement type of a SESSION_INFO_NTF (byte 13).
public struct RangingMeasurementType: NamedCode {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let oneWay: RangingMeasurementType = 0
    public static let twoWay: RangingMeasurementType = 1
    public static let downlinkTDoA: RangingMeasurementType = 2
    public static let oneWayAoA: RangingMeasurementType = 3

    public static let names: [UInt8: String] = [0: "ONE_WAY", 1: "TWO_WAY", 2: "DL_TDOA", 3: "OWR_AOA"]
}
