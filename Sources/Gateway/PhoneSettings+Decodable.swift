import UCI
import Vocabulary
import YAMLCoding

/// The `phones:` section as the config file writes it; unknown keys are errors (by `YAMLDecoder`),
/// every value is checked with the key's `file:line:column`.
extension PhoneSettings: Decodable {
    enum CodingKeys: String, CodingKey {
        case enabled, max, apple
        case sessionKeyInfo = "session_key_info", noRangingTimeout = "no_ranging_timeout"
    }

    /// FIRA_RESPONDERS_MAX: the most controlees one session holds.
    public static let maximumPhones: ClosedRange<Int> = 1...8
    /// Shorter than a second ends sessions that merely start slowly; longer than a minute keeps
    /// the radio busy long after the phone gave up (it does after 10 s).
    public static let noRangingTimeouts: ClosedRange<Double> = 1...60

    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func mark(_ key: CodingKeys) -> SourceMark { AgentConfiguration.mark(of: decoder, key: key.stringValue) }
        enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? enabled
        if let text = try c.decodeIfPresent(String.self, forKey: .sessionKeyInfo), text != "random" {
            sessionKeyInfo = try AgentConfiguration.sessionKeyInfo(text, key: "phones.session_key_info", orRandom: true, at: mark(.sessionKeyInfo))
        }
        noRangingTimeout = try c.decodeIfPresent(TimeSpan.self, forKey: .noRangingTimeout) ?? noRangingTimeout
        guard Self.noRangingTimeouts.contains(noRangingTimeout.seconds) else {
            throw SourceError(at: mark(.noRangingTimeout), "phones.no_ranging_timeout must be between 1s and 60s, found \(noRangingTimeout)")
        }
        apple = try c.decodeIfPresent(AppleAccessorySettings.self, forKey: .apple) ?? apple
        maximum = try c.decodeIfPresent(Int.self, forKey: .max) ?? maximum
        guard Self.maximumPhones.contains(maximum) else {
            throw SourceError(at: mark(.max), "phones.max must be \(Self.maximumPhones.lowerBound) to \(Self.maximumPhones.upperBound) "
                            + "(the responders one session holds), found \(maximum)")
        }
    }
}
