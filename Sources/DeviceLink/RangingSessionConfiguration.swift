import UCI

/// The ranging session the gateway runs, from the `device:` section of the config
/// (cli-and-config.md): who we are, whom we range with, on which channel, how often.
public struct RangingSessionConfiguration: Hashable, Sendable {
    public var role: DeviceType
    /// Shared by both ends; the device answers SESSION_INIT with its own handle (uci.md Q1).
    public var sessionID: UInt32
    public var ownAddress: UInt16
    /// Up to 8 controlees for a controller; the controller's address for a controlee.
    public var peers: [UInt16]
    public var channel: UInt8
    public var rangingIntervalMilliseconds: UInt32
    /// What both ends must set alike: preamble, slots, hopping, key (the `device.profile`).
    public var air: AirParameters
    /// One-to-many even with a single peer (a phone session of Jetpack config 2, which phones
    /// join later); nil: one-to-many exactly when a controller has several peers.
    public var oneToMany: Bool?
    /// Which SESSION_SET_APP_CONFIG list the session sends: the FiRa DS-TWR set, or the one an
    /// iPhone's Nearby Interaction session expects (apple-interop.md §4).
    public var parameterSet: ParameterSet = .dsTWR

    public enum ParameterSet: Hashable, Sendable {
        case dsTWR
        case appleNearbyInteraction
    }

    public static let maximumPeers = 8

    public init(role: DeviceType = .controller, sessionID: UInt32 = 42, ownAddress: UInt16 = 0x0000,
                peers: [UInt16], channel: UInt8 = 9, rangingIntervalMilliseconds: UInt32 = 200,
                air: AirParameters = .qorvo) {
        self.role = role
        self.sessionID = sessionID
        self.ownAddress = ownAddress
        self.peers = peers
        self.channel = channel
        self.rangingIntervalMilliseconds = rangingIntervalMilliseconds
        self.air = air
    }

    /// A controller with more than one peer ranges one-to-many; peers can then be added and
    /// removed at run time with the multicast-list update instead of a session restart.
    public var multiNodeMode: MultiNodeMode { oneToMany ?? (role == .controller && peers.count > 1) ? .oneToMany : .unicast }

    /// The SESSION_SET_APP_CONFIG parameters: the DS-TWR set of uci.md §4.3 with these air
    /// parameters, or the Nearby Interaction set.
    public var appConfiguration: [AppConfigParameter] {
        switch parameterSet {
        case .dsTWR:
            AppConfigParameter.dsTWR(role: role, ownAddress: ownAddress, peers: peers, channel: channel,
                                     rangingDurationMilliseconds: rangingIntervalMilliseconds, multiNode: multiNodeMode, air: air)
        case .appleNearbyInteraction:
            AppConfigParameter.appleNearbyInteraction(role: role, ownAddress: ownAddress, phone: peers.first ?? 0, channel: channel,
                                                      rangingDurationMilliseconds: rangingIntervalMilliseconds, air: air)
        }
    }

    /// True when `other` differs only in its peers and both run one-to-many: the change can be
    /// applied with SESSION_UPDATE_CONTROLLER_MULTICAST_LIST while ranging continues.
    func differsOnlyInPeers(from other: RangingSessionConfiguration) -> Bool {
        var same = other
        same.peers = peers
        return same == self && multiNodeMode == .oneToMany && other.multiNodeMode == .oneToMany
    }
}
