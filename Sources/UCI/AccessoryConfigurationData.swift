/// Apple's Nearby Interaction *Accessory Configuration Data* (apple-interop.md §2): what the
/// gateway, as a third-party UWB accessory, hands an iPhone app for
/// `NINearbyAccessoryConfiguration(data:)`. A 16-byte header (accessory protocol 1.0, the
/// preferred update rate, the length of what follows) and the UWB configuration data, whose
/// version decides its length: 19 bytes (1.0), 21 (1.1, with the clock drift), 32 (2.0, with the
/// timing the accessory requests). Integers little-endian; the address in wire order.
///
/// The firmware of the DWM3001C knows nothing of Apple's protocol: the host builds this, as
/// AOSP's accessory test app does.
public struct AccessoryConfigurationData: Hashable, Sendable {
    public enum UWBConfigVersion: String, Hashable, Sendable, CaseIterable {
        case v1_0 = "1.0"
        case v1_1 = "1.1"
        case v2_0 = "2.0"

        var majorMinor: (UInt16, UInt16) {
            switch self {
            case .v1_0: (1, 0)
            case .v1_1: (1, 1)
            case .v2_0: (2, 0)
            }
        }

        /// The bytes of UWB configuration data this version carries.
        public var length: Int {
            switch self {
            case .v1_0: 19
            case .v1_1: 21
            case .v2_0: 32
            }
        }
    }

    /// The rate the accessory prefers; iOS chooses the interval (`[Q-NIQH]`).
    public enum PreferredUpdateRate: UInt8, Hashable, Sendable {
        case automatic = 0
        /// About 1.3 Hz.
        case infrequent = 10
        /// About 5.5 Hz.
        case userInteractive = 20
    }

    /// The accessory's part of the session: a responder is the controlee of the iPhone.
    public enum RangingRole: UInt8, Hashable, Sendable {
        case responder = 0
        case initiator = 1
    }

    /// Who the accessory says it is: iOS takes Qorvo's from Qorvo boards; AOSP sends zeros.
    public struct ChipsetIDs: Hashable, Sendable {
        public var manufacturer: UInt32
        public var model: UInt32
        public var middlewareVersion: UInt32

        public init(manufacturer: UInt32, model: UInt32, middlewareVersion: UInt32) {
            self.manufacturer = manufacturer
            self.model = model
            self.middlewareVersion = middlewareVersion
        }

        /// As Qorvo's QANI firmware sends them (the forum capture of spec §3).
        public static let qorvo = ChipsetIDs(manufacturer: 0x0003_F53F, model: 0x0000_0BB8, middlewareVersion: 0x0101_0000)
        public static let zero = ChipsetIDs(manufacturer: 0, model: 0, middlewareVersion: 0)
    }

    /// What a 2.0 configuration asks iOS for (iOS may choose otherwise).
    public struct RequestedTiming: Hashable, Sendable {
        public var hopping = false
        public var slotsPerRound: UInt16 = 25
        public var slotDurationRSTU: UInt16 = 2400
        public var rangingIntervalMilliseconds: UInt16 = 200

        public init() {}
    }

    public var version: UWBConfigVersion
    public var preferredUpdateRate: PreferredUpdateRate
    public var chipset: ChipsetIDs
    public var role: RangingRole
    /// The accessory's short address, wire order (`A7 3C`, `"A7:3C"` in the API).
    public var address: [UInt8]
    public var clockDriftPPM: UInt16
    /// Sent in 2.0 only.
    public var requested: RequestedTiming

    public init(version: UWBConfigVersion = .v1_1, preferredUpdateRate: PreferredUpdateRate = .userInteractive,
                chipset: ChipsetIDs = .qorvo, role: RangingRole = .responder, address: (UInt8, UInt8),
                clockDriftPPM: UInt16 = 25, requested: RequestedTiming = RequestedTiming()) {
        self.version = version
        self.preferredUpdateRate = preferredUpdateRate
        self.chipset = chipset
        self.role = role
        self.address = [address.0, address.1]
        self.clockDriftPPM = clockDriftPPM
        self.requested = requested
    }

    /// Why a structure cannot be read as accessory configuration data; `field` names it.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let field: String
        public let message: String
        public var description: String { message }
    }

    /// Reads `bytes` as an app hands them to iOS, strictly: accessory protocol 1.0, a known
    /// preferred update rate, reserved bytes 0, a UWB configuration of version 1.0, 1.1 or 2.0
    /// whose length byte and size match the version, role 0 or 1, requested hopping 0 or 1.
    /// Whatever is read is written back by `bytes` unchanged. Version 1.0 carries no clock
    /// drift (`clockDriftPPM` is then 0) and 1.x no request (`requested` stays the default).
    public init(bytes: [UInt8]) throws(Problem) {
        let accepted = UWBConfigVersion.allCases.map { "\($0.rawValue) = \(16 + $0.length)" }.joined(separator: ", ")
        func problem(_ field: String, _ message: String) -> Problem { Problem(field: field, message: message) }
        guard bytes.count >= 20 else {
            throw problem("accessory_configuration_data", "accessory_configuration_data is \(bytes.count) bytes; accepted \(accepted)")
        }
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
        guard u16(0) == 1, u16(2) == 0 else {
            throw problem("accessory_protocol_version", "accessory protocol version \(u16(0)).\(u16(2)) is not 1.0")
        }
        guard let rate = PreferredUpdateRate(rawValue: bytes[4]) else {
            throw problem("preferred_update_rate",
                          "preferred update rate \(bytes[4]) is none of 0 (automatic), 10 (infrequent), 20 (user interactive)")
        }
        if let index = (5..<15).first(where: { bytes[$0] != 0 }) {
            throw problem("reserved", "reserved header byte \(index) is \(bytes[index]), not 0")
        }
        let major = u16(16), minor = u16(18)
        guard let version = UWBConfigVersion.allCases.first(where: { $0.majorMinor == (major, minor) }) else {
            throw problem("uwb_config_version", "UWB config version \(major).\(minor) is none of 1.0, 1.1, 2.0")
        }
        guard Int(bytes[15]) == version.length else {
            throw problem("uwb_config_length", "the length byte says \(bytes[15]) bytes of UWB config data; "
                          + "version \(version.rawValue) has \(version.length)")
        }
        guard bytes.count == 16 + version.length else {
            throw problem("accessory_configuration_data", "accessory_configuration_data is \(bytes.count) bytes with "
                          + "UWB config version \(version.rawValue); accepted \(accepted)")
        }
        guard let role = RangingRole(rawValue: bytes[32]) else {
            throw problem("ranging_role", "ranging role \(bytes[32]) is neither 0 (responder) nor 1 (initiator)")
        }
        self.version = version
        preferredUpdateRate = rate
        chipset = ChipsetIDs(manufacturer: u32(20), model: u32(24), middlewareVersion: u32(28))
        self.role = role
        address = [bytes[33], bytes[34]]
        clockDriftPPM = version == .v1_0 ? 0 : u16(35)
        requested = RequestedTiming()
        guard version == .v2_0 else { return }
        if let index = (37..<41).first(where: { bytes[$0] != 0 }) {
            throw problem("reserved", "reserved UWB config byte \(index - 16) is \(bytes[index]), not 0")
        }
        guard bytes[41] <= 1 else { throw problem("requested_hopping", "requested hopping \(bytes[41]) is neither 0 nor 1") }
        requested.hopping = bytes[41] == 1
        requested.slotsPerRound = u16(42)
        requested.slotDurationRSTU = u16(44)
        requested.rangingIntervalMilliseconds = u16(46)
    }

    /// The whole structure, header first, as the app passes it to iOS.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16 + version.length)
        // The accessory protocol's header: 1.0, the rate, ten reserved bytes, the length.
        out.appendLittleEndian(UInt16(1))
        out.appendLittleEndian(UInt16(0))
        out.append(preferredUpdateRate.rawValue)
        out.append(contentsOf: [UInt8](repeating: 0, count: 10))
        out.append(UInt8(version.length))
        let (major, minor) = version.majorMinor
        out.appendLittleEndian(major)
        out.appendLittleEndian(minor)
        out.appendLittleEndian(chipset.manufacturer)
        out.appendLittleEndian(chipset.model)
        out.appendLittleEndian(chipset.middlewareVersion)
        out.append(role.rawValue)
        out.append(contentsOf: address)
        guard version != .v1_0 else { return out }
        out.appendLittleEndian(clockDriftPPM)
        guard version == .v2_0 else { return out }
        out.append(contentsOf: [0, 0, 0, 0])
        out.append(requested.hopping ? 1 : 0)
        out.appendLittleEndian(requested.slotsPerRound)
        out.appendLittleEndian(requested.slotDurationRSTU)
        out.appendLittleEndian(requested.rangingIntervalMilliseconds)
        return out
    }
}

extension Array where Element == UInt8 {
    mutating func appendLittleEndian(_ value: some FixedWidthInteger) {
        for index in 0..<(value.bitWidth / 8) { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
