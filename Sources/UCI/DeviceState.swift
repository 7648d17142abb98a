/// The UWBS state in CORE_DEVICE_STATUS_NTF (uci.md §3.2). ERROR means "needs to be reset".
public struct DeviceState: NamedCode {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let ready: DeviceState = 0x01
    public static let active: DeviceState = 0x02
    public static let error: DeviceState = 0xFF

    public static let names: [UInt8: String] = [
        0x01: "DEVICE_STATE_READY", 0x02: "DEVICE_STATE_ACTIVE", 0xFF: "DEVICE_STATE_ERROR",
    ]
}
