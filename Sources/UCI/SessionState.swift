/// A ranging session's state (uci.md §3.3): INIT after SESSION_INIT, IDLE once configured,
/// ACTIVE while ranging, DEINIT when gone.
public struct SessionState: NamedCode {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let initialized: SessionState = 0x00
    public static let deinitialized: SessionState = 0x01
    public static let active: SessionState = 0x02
    public static let idle: SessionState = 0x03

    public static let names: [UInt8: String] = [
        0x00: "SESSION_STATE_INIT", 0x01: "SESSION_STATE_DEINIT", 0x02: "SESSION_STATE_ACTIVE", 0x03: "SESSION_STATE_IDLE",
    ]
}
