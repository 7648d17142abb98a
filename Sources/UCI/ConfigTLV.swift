/// A type-length-value entry as configuration messages carry them: `id(1) len(1) value(len)`.
///
/// Used for app configs (SESSION_SET/GET_APP_CONFIG), device configs (CORE_SET/GET_CONFIG)
/// and capabilities (CORE_GET_CAPS_INFO). The value stays raw bytes so that every parameter,
/// named or not, survives a decode/encode round trip; `AppConfigParameter` gives the typed view.
public struct ConfigTLV: Hashable, Sendable {
    public var id: UInt8
    public var value: [UInt8]

    public init(id: UInt8, value: [UInt8]) {
        self.id = id
        self.value = value
    }

    static func readList(_ reader: inout ByteReader, count field: StaticString) throws(UCIDecodingError) -> [ConfigTLV] {
        let count = try reader.count(field, minimumEntrySize: 2)
        var result: [ConfigTLV] = []
        result.reserveCapacity(count)
        for _ in 0..<count {
            let id = try reader.u8("parameter id")
            let length = Int(try reader.u8("parameter length"))
            result.append(ConfigTLV(id: id, value: try reader.bytes(length, "parameter value")))
        }
        return result
    }

    static func encodeList(_ list: [ConfigTLV], into bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: list.count))
        for tlv in list {
            bytes.append(tlv.id)
            bytes.append(UInt8(truncatingIfNeeded: tlv.value.count))
            bytes.append(contentsOf: tlv.value)
        }
    }

    /// The value as a little-endian unsigned integer (for values of 1…8 bytes).
    public var unsignedValue: UInt64? {
        guard (1...8).contains(value.count) else { return nil }
        var result: UInt64 = 0
        for (index, byte) in value.enumerated() { result |= UInt64(byte) << (8 * UInt64(index)) }
        return result
    }
}

/// One entry of the failed-parameter list in CORE_SET_CONFIG_RSP and SESSION_SET_APP_CONFIG_RSP.
public struct ConfigStatus: Hashable, Sendable {
    public var id: UInt8
    public var status: Status

    public init(id: UInt8, status: Status) {
        self.id = id
        self.status = status
    }
}

/// Device configuration ids for CORE_SET/GET_CONFIG (uci.md §4.2).
public enum DeviceConfigID {
    public static let deviceState: UInt8 = 0x00
    public static let lowPowerMode: UInt8 = 0x01

    public static let names: [UInt8: String] = [
        0x00: "DEVICE_STATE", 0x01: "LOW_POWER_MODE",
        0xA0: "CHANNEL_NUMBER", 0xA8: "TRACES", 0xA9: "PM_MIN_INACTIVITY_S4",
    ]
}
