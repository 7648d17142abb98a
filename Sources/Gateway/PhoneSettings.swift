import UCI
import Vocabulary

/// The config's `phones:` section: whether phones may ask for a ranging session over MQTT
/// (`phone_session`), and what the gateway answers them with: Android phones with Jetpack's
/// parameters, iPhones with Nearby Interaction's accessory configuration data.
public struct PhoneSettings: Sendable, Hashable {
    public var enabled = true
    /// nil: a random key per session (what Google's sample does); a configured key is shared by
    /// every phone session, so it is for tests and fixed demos only.
    public var sessionKeyInfo: SessionKeyInfo?
    /// The phone stops after 10 s without a successful round (android-interop.md §9); the
    /// gateway ends the session after the same time, so that both let go together.
    public var noRangingTimeout = TimeSpan(seconds: 10)
    /// Phones ranging at once (one-to-many sessions, Jetpack config 2); FIRA_RESPONDERS_MAX is 8.
    public var maximum = 8
    /// How iPhones see the gateway (`phones.apple`).
    public var apple = AppleAccessorySettings()

    public init() {}
}
