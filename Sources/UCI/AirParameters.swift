/// The DS-TWR parameters that both ends of a session must set alike for a single frame to be
/// understood (android-interop.md §0, §4 "air" rows) beyond channel, roles, addresses and
/// interval, which the session states itself.
///
/// `qorvo` is the set uwb2mqtt has always sent (Qorvo's examples; DWM3001C tags flashed with
/// them); `android` is what Jetpack's CONFIG_UNICAST_DS_TWR puts on the air.
public struct AirParameters: Hashable, Sendable {
    /// BPRF preamble code, 9–12 (the only ones Jetpack and the DWM3001C share).
    public var preambleCodeIndex: UInt8
    public var slotsPerRound: UInt8
    /// In RSTU: 1200 RSTU = 1 ms.
    public var slotDurationRSTU: UInt16
    /// FiRa round hopping (HOPPING_MODE 1); the firmware default is off.
    public var hopping: Bool
    /// RANGING_ROUND_CONTROL; nil leaves the firmware default.
    public var rangingRoundControl: UInt8?
    public var sessionKeyInfo: SessionKeyInfo

    public static let preambleCodeIndices: ClosedRange<UInt8> = 9...12

    public init(preambleCodeIndex: UInt8, slotsPerRound: UInt8, slotDurationRSTU: UInt16, hopping: Bool,
                rangingRoundControl: UInt8? = nil, sessionKeyInfo: SessionKeyInfo) {
        self.preambleCodeIndex = preambleCodeIndex
        self.slotsPerRound = slotsPerRound
        self.slotDurationRSTU = slotDurationRSTU
        self.hopping = hopping
        self.rangingRoundControl = rangingRoundControl
        self.sessionKeyInfo = sessionKeyInfo
    }

    /// uci.md §4.3: what DWM3001C tags running Qorvo's examples expect.
    public static let qorvo = AirParameters(preambleCodeIndex: 10, slotsPerRound: 25, slotDurationRSTU: 2400,
                                            hopping: false, sessionKeyInfo: .qorvoExample)

    /// Jetpack CONFIG_UNICAST_DS_TWR (android-interop.md §0): preamble 9 as in the interop reports,
    /// 6 slots of 2 ms, hopping, result-report and control messages. A one-to-many session with
    /// phones (config 2) uses 20 slots.
    public static let android = AirParameters(preambleCodeIndex: 9, slotsPerRound: 6, slotDurationRSTU: 2400,
                                              hopping: true, rangingRoundControl: 0x03, sessionKeyInfo: .qorvoExample)
}
