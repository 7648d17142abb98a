/// What iOS answers an accessory with: the *shareable configuration data* of
/// `session(_:didGenerateShareableConfigurationData:for:)` (apple-interop.md §2). iOS chooses the
/// whole session — id, channel, preamble, timing, STS IV, the iPhone's address — and the
/// accessory starts a plain FiRa unicast DS-TWR session with static STS from it.
///
/// Read strictly: versions 1.0 (28 bytes), 1.1 (30, with the iPhone's clock drift) and 2.0 (35,
/// with hopping), the length byte matching the version; and only values a DWM3001C can range
/// with. Anything else is a `Problem` naming the field, and nothing reaches the device.
public struct ShareableConfigurationData: Hashable, Sendable {
    public enum Version: String, Hashable, Sendable, CaseIterable {
        case v1_0 = "1.0"
        case v1_1 = "1.1"
        case v2_0 = "2.0"

        /// The whole structure's size.
        public var size: Int {
            switch self {
            case .v1_0: 28
            case .v1_1: 30
            case .v2_0: 35
            }
        }

        var majorMinor: (UInt16, UInt16) {
            switch self {
            case .v1_0: (1, 0)
            case .v1_1: (1, 1)
            case .v2_0: (2, 0)
            }
        }
    }

    public var version: Version
    /// Two ASCII letters (`"US"`), as iOS sends them.
    public var countryCode: [UInt8]
    public var sessionID: UInt32
    public var preambleCodeIndex: UInt8
    public var channel: UInt8
    public var slotsPerRound: UInt16
    /// RSTU: 1,200 are a millisecond.
    public var slotDurationRSTU: UInt16
    public var rangingIntervalMilliseconds: UInt16
    /// RANGING_ROUND_CONTROL, passed to the device as it is.
    public var rangingRoundControl: UInt8
    /// STATIC_STS_IV, wire order: key material, never published or logged.
    public var staticSTSIV: [UInt8]
    /// The iPhone's short address, wire order.
    public var phoneAddress: [UInt8]
    /// 1.1 and 2.0; nil in 1.0.
    public var clockDriftPPM: UInt16?
    /// 2.0 only; false before.
    public var hopping: Bool

    public init(version: Version, countryCode: [UInt8], sessionID: UInt32, preambleCodeIndex: UInt8, channel: UInt8,
                slotsPerRound: UInt16, slotDurationRSTU: UInt16, rangingIntervalMilliseconds: UInt16, rangingRoundControl: UInt8,
                staticSTSIV: [UInt8], phoneAddress: [UInt8], clockDriftPPM: UInt16?, hopping: Bool) {
        self.version = version
        self.countryCode = countryCode
        self.sessionID = sessionID
        self.preambleCodeIndex = preambleCodeIndex
        self.channel = channel
        self.slotsPerRound = slotsPerRound
        self.slotDurationRSTU = slotDurationRSTU
        self.rangingIntervalMilliseconds = rangingIntervalMilliseconds
        self.rangingRoundControl = rangingRoundControl
        self.staticSTSIV = staticSTSIV
        self.phoneAddress = phoneAddress
        self.clockDriftPPM = clockDriftPPM
        self.hopping = hopping
    }

    /// Why a structure from iOS cannot be used; `field` names it as the spec does.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let field: String
        public let message: String
        public var description: String { message }
    }

    /// VENDOR_ID (Apple, 0x004C, wire `4C 00`) and the IV: the eight bytes the device's static STS
    /// takes, as `SessionKeyInfo` holds them for Android; nil only for a value made by hand with
    /// an IV that is not six bytes.
    public var sessionKeyInfo: SessionKeyInfo? { SessionKeyInfo([0x4C, 0x00] + staticSTSIV) }

    /// A ranging round: slots × slot duration, in milliseconds.
    public var roundMilliseconds: Double { Double(slotsPerRound) * Double(slotDurationRSTU) / 1200 }

    /// Reads and checks `bytes` as iOS sent them.
    public init(bytes: [UInt8]) throws(Problem) {
        func problem(_ field: String, _ message: String, chosenByIOS: Bool = true) -> Problem {
            Problem(field: field, message: message + (chosenByIOS ? "; invalidate the NISession and run a new one" : ""))
        }
        let accepted = Version.allCases.map { "\($0.rawValue) = \($0.size)" }.joined(separator: ", ")
        guard bytes.count >= 5 else {
            throw problem("shareable_configuration_data", "shareable_configuration_data is \(bytes.count) bytes; accepted \(accepted)",
                          chosenByIOS: false)
        }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        let major = u16(0), minor = u16(2)
        guard let version = Version.allCases.first(where: { $0.majorMinor == (major, minor) }) else {
            throw problem("version", "shareable_configuration_data has version \(major).\(minor); accepted \(accepted)", chosenByIOS: false)
        }
        guard bytes.count == version.size, Int(bytes[4]) == version.size - 5 else {
            throw problem("shareable_configuration_data",
                          "shareable_configuration_data is \(bytes.count) bytes (length byte \(bytes[4])) with version \(version.rawValue); "
                          + "accepted \(accepted)", chosenByIOS: false)
        }
        self.version = version
        countryCode = Array(bytes[5..<7])
        sessionID = UInt32(u16(7)) | UInt32(u16(9)) << 16
        preambleCodeIndex = bytes[11]
        channel = bytes[12]
        slotsPerRound = u16(13)
        slotDurationRSTU = u16(15)
        rangingIntervalMilliseconds = u16(17)
        rangingRoundControl = bytes[19]
        staticSTSIV = Array(bytes[20..<26])
        phoneAddress = Array(bytes[26..<28])
        clockDriftPPM = version == .v1_0 ? nil : u16(28)
        hopping = version == .v2_0 && bytes[34] == 1

        guard sessionID != 0 else { throw problem("session_id", "session id 0 is not a FiRa session") }
        guard channel == 5 || channel == 9 else {
            throw problem("channel", "channel \(channel) is not supported by the DWM3001C (5 or 9)")
        }
        guard (9...12).contains(preambleCodeIndex) else {
            throw problem("preamble_index", "preamble code index \(preambleCodeIndex) is not supported by the DWM3001C (9 to 12)")
        }
        guard slotDurationRSTU > 0, slotDurationRSTU % 1200 == 0 else {
            throw problem("slot_duration_rstu", "slot duration \(slotDurationRSTU) RSTU is not a whole number of milliseconds (a multiple of 1200)")
        }
        guard (4...32).contains(slotsPerRound) else {
            throw problem("slots_per_round", "\(slotsPerRound) slots per round is not supported (4 to 32)")
        }
        let slotMilliseconds = Int(slotDurationRSTU) / 1200
        guard rangingIntervalMilliseconds >= 50, Double(rangingIntervalMilliseconds) >= roundMilliseconds else {
            throw problem("ranging_interval_ms", "ranging interval \(rangingIntervalMilliseconds) ms is "
                          + (Double(rangingIntervalMilliseconds) < roundMilliseconds
                             ? "shorter than the round, \(slotsPerRound) × \(slotMilliseconds) ms" : "under 50 ms"))
        }
        if version == .v2_0, bytes[34] > 1 {
            throw problem("hopping", "hopping mode \(bytes[34]) is neither 0 nor 1")
        }
    }

    /// The structure as iOS writes it (for a simulated iPhone and for tests).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        let (major, minor) = version.majorMinor
        out.appendLittleEndian(major)
        out.appendLittleEndian(minor)
        out.append(UInt8(version.size - 5))
        out.append(contentsOf: countryCode.prefix(2))
        out.appendLittleEndian(sessionID)
        out.append(preambleCodeIndex)
        out.append(channel)
        out.appendLittleEndian(slotsPerRound)
        out.appendLittleEndian(slotDurationRSTU)
        out.appendLittleEndian(rangingIntervalMilliseconds)
        out.append(rangingRoundControl)
        out.append(contentsOf: staticSTSIV.prefix(6))
        out.append(contentsOf: phoneAddress.prefix(2))
        guard version != .v1_0 else { return out }
        out.appendLittleEndian(clockDriftPPM ?? 0)
        guard version == .v2_0 else { return out }
        out.append(contentsOf: [0, 0, 0, 0])
        out.append(hopping ? 1 : 0)
        return out
    }
}
