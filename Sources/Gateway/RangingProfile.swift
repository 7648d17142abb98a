import DeviceLink
import UCI
import Vocabulary

/// `device.profile`: which peers the gateway's own session is meant for. A profile fills every
/// air parameter and the ranging interval; the config's explicit keys override single values,
/// so that a site can match tags flashed with other settings without a new profile.
public enum RangingProfile: String, Sendable, Hashable, CaseIterable {
    /// DWM3001C tags running Qorvo's examples: the set uwb2mqtt has always sent, byte for byte.
    case qorvo
    /// One Android phone using Jetpack's CONFIG_UNICAST_DS_TWR (android-interop.md §0).
    case android

    public var air: AirParameters {
        switch self {
        case .qorvo: .qorvo
        case .android: .android
        }
    }

    /// qorvo: the interval uwb2mqtt has always used; android: Jetpack's AUTOMATIC rate for
    /// config 1 (240 ms, android-interop.md §3), the one every phone offers.
    public var rangingInterval: TimeSpan {
        switch self {
        case .qorvo: TimeSpan(seconds: 0.2)
        case .android: TimeSpan(seconds: 0.24)
        }
    }

    /// How many configured peers a session of this profile can range with: Jetpack's unicast
    /// config has exactly one; other phones join through their own `phone_session` request.
    public var maximumPeers: Int {
        switch self {
        case .qorvo: RangingSessionConfiguration.maximumPeers
        case .android: 1
        }
    }
}
