import UCI
import Vocabulary
import YAMLCoding

/// The config's `phones.apple:` section: how the gateway presents itself to iPhones as a Nearby
/// Interaction accessory (apple-interop.md §5, "Config"). iOS chooses the session; these are
/// what the gateway says about itself and asks for.
public struct AppleAccessorySettings: Sendable, Hashable {
    /// responder: the iPhone is the controller (Qorvo's default); initiator: the gateway is.
    public var role: AccessoryConfigurationData.RangingRole = .responder
    public var uwbConfigVersion: AccessoryConfigurationData.UWBConfigVersion = .v1_1
    /// Used when a request names none.
    public var preferredUpdateRate: AccessoryConfigurationData.PreferredUpdateRate = .userInteractive
    public var clockDriftPPM: UInt16 = 25
    public var chipset: AccessoryConfigurationData.ChipsetIDs = .qorvo
    /// How long an accessory configuration waits for its `phone_session_start`: a first run may
    /// wait on iOS's permission prompt.
    public var accessoryDataTimeout = TimeSpan(seconds: 30)
    /// Sent in UWB config 2.0 only.
    public var requested = AccessoryConfigurationData.RequestedTiming()

    public init() {}

    public static let accessoryDataTimeouts: ClosedRange<Double> = 5...600
    public static let clockDrifts: ClosedRange<Int> = 0...100

    /// The names ``updateRate(named:)`` takes.
    static let updateRateNames = [AccessoryConfigurationData.PreferredUpdateRate.automatic, .infrequent, .userInteractive].map(name(of:))

    static func updateRate(named name: String) -> AccessoryConfigurationData.PreferredUpdateRate? {
        switch name {
        case "automatic": .automatic
        case "infrequent": .infrequent
        case "user_interactive": .userInteractive
        default: nil
        }
    }

    static func name(of rate: AccessoryConfigurationData.PreferredUpdateRate) -> String {
        switch rate {
        case .automatic: "automatic"
        case .infrequent: "infrequent"
        case .userInteractive: "user_interactive"
        }
    }
}

/// As the config file writes it: unknown keys are errors, every value is checked with its
/// `file:line:column`.
extension AppleAccessorySettings: Decodable {
    enum CodingKeys: String, CodingKey {
        case role
        case uwbConfigVersion = "uwb_config_version", preferredUpdateRate = "preferred_update_rate"
        case clockDriftPPM = "clock_drift_ppm", chipsetIDs = "chipset_ids", accessoryDataTimeout = "accessory_data_timeout"
        case request
    }

    enum RequestKeys: String, CodingKey {
        case hopping
        case slotsPerRound = "slots_per_round", slotDuration = "slot_duration", rangingInterval = "ranging_interval"
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func mark(_ key: CodingKeys) -> SourceMark { AgentConfiguration.mark(of: decoder, key: key.stringValue) }
        if let text = try c.decodeIfPresent(String.self, forKey: .role) {
            switch text {
            case "responder": role = .responder
            case "initiator": role = .initiator
            default: throw SourceError(at: mark(.role), "phones.apple.role must be responder or initiator, found \"\(text.prefix(32))\"")
            }
        }
        if let text = try c.decodeIfPresent(String.self, forKey: .uwbConfigVersion) {
            guard let version = AccessoryConfigurationData.UWBConfigVersion(rawValue: text) else {
                throw SourceError(at: mark(.uwbConfigVersion), "phones.apple.uwb_config_version must be \"1.0\", \"1.1\" or \"2.0\", "
                                + "found \"\(text.prefix(32))\"")
            }
            uwbConfigVersion = version
        }
        if let text = try c.decodeIfPresent(String.self, forKey: .preferredUpdateRate) {
            guard let rate = Self.updateRate(named: text) else {
                throw SourceError(at: mark(.preferredUpdateRate),
                                "phones.apple.preferred_update_rate must be user_interactive, automatic or infrequent, found \"\(text.prefix(32))\"")
            }
            preferredUpdateRate = rate
        }
        if let drift = try c.decodeIfPresent(Int.self, forKey: .clockDriftPPM) {
            guard Self.clockDrifts.contains(drift) else {
                throw SourceError(at: mark(.clockDriftPPM), "phones.apple.clock_drift_ppm must be 0 to 100, found \(drift)")
            }
            clockDriftPPM = UInt16(drift)
        }
        if let text = try c.decodeIfPresent(String.self, forKey: .chipsetIDs) {
            switch text {
            case "qorvo": chipset = .qorvo
            case "zero": chipset = .zero
            default: throw SourceError(at: mark(.chipsetIDs), "phones.apple.chipset_ids must be qorvo or zero, found \"\(text.prefix(32))\"")
            }
        }
        accessoryDataTimeout = try c.decodeIfPresent(TimeSpan.self, forKey: .accessoryDataTimeout) ?? accessoryDataTimeout
        guard Self.accessoryDataTimeouts.contains(accessoryDataTimeout.seconds) else {
            throw SourceError(at: mark(.accessoryDataTimeout), "phones.apple.accessory_data_timeout must be between 5s and 10min, found \(accessoryDataTimeout)")
        }
        guard c.contains(.request) else { return }
        let r = try c.nestedContainer(keyedBy: RequestKeys.self, forKey: .request)
        let requestDecoder = try c.superDecoder(forKey: .request)
        func requestMark(_ key: RequestKeys) -> SourceMark { AgentConfiguration.mark(of: requestDecoder, key: key.stringValue) }
        requested.hopping = try r.decodeIfPresent(Bool.self, forKey: .hopping) ?? requested.hopping
        if let slots = try r.decodeIfPresent(Int.self, forKey: .slotsPerRound) {
            guard (4...32).contains(slots) else {
                throw SourceError(at: requestMark(.slotsPerRound), "phones.apple.request.slots_per_round must be 4 to 32, found \(slots)")
            }
            requested.slotsPerRound = UInt16(slots)
        }
        if let span = try r.decodeIfPresent(TimeSpan.self, forKey: .slotDuration) {
            let rstu = (span.seconds * 1_200_000).rounded()
            guard (1200...12_000).contains(rstu), Int(rstu) % 1200 == 0 else {
                throw SourceError(at: requestMark(.slotDuration), "phones.apple.request.slot_duration must be whole milliseconds from 1ms to 10ms, found \(span)")
            }
            requested.slotDurationRSTU = UInt16(rstu)
        }
        if let span = try r.decodeIfPresent(TimeSpan.self, forKey: .rangingInterval) {
            let ms = (span.seconds * 1000).rounded()
            guard (50...5000).contains(ms) else {
                throw SourceError(at: requestMark(.rangingInterval), "phones.apple.request.ranging_interval must be 50ms to 5s, found \(span)")
            }
            requested.rangingIntervalMilliseconds = UInt16(ms)
        }
        let round = Double(requested.slotsPerRound) * Double(requested.slotDurationRSTU) / 1200
        guard Double(requested.rangingIntervalMilliseconds) >= round else {
            throw SourceError(at: mark(.request), "phones.apple.request.ranging_interval \(requested.rangingIntervalMilliseconds) ms is shorter than "
                            + "its round, \(requested.slotsPerRound) × \(Int(requested.slotDurationRSTU) / 1200) ms")
        }
    }
}
