import DeviceLink
import UCI
import Vocabulary

/// What the core knows of the device and the broker connection, and what it counted: the
/// `device` payload, the answers to requests and `metrics` read it.
struct AgentStatus {
    var deviceState: DeviceLinkState = .absent(nil)
    var devicePort: String
    var deviceInfo: DeviceInfo?
    var capabilities = DeviceCapabilities(tlvs: [], uciVersion: nil)
    /// The state last said in the log and the `device` payload last published (without its
    /// `ts`): a back-off retry that ends where the last one did is not said or published again.
    var deviceStateSaid: DeviceLinkState?
    var devicePayloadPublished: [JSONMember]?
    /// Monotonic time of `started`: uptime counts from it.
    var startedAt = 0.0
    var framesReceived = 0
    var framesInvalid = 0
    /// Times the session reached `ranging`; every time after the first is a reconnect.
    var rangingReached = 0
    var deviceReconnects = 0
    var brokerReconnects = 0
    var requestsDropped = 0
    /// Phones' reports taken, and dropped (no session, wrong token, malformed, late…).
    var phoneReports = 0
    var phoneReportsDropped = 0
    var brokerConnectedOnce = false
    /// Monotonic time of the current connection, while there is one.
    var brokerConnectedAt: Double?
    /// Connections in a row that the broker closed within seconds, and how many of them after
    /// a large message.
    var quickDrops = 0
    var quickDropsAfterLargePackets = 0
    var largePacketProblem = RepeatedReason()
    var brokerProblem = RepeatedReason()
    var stalls = LogThrottle(window: 60)
    /// The publishing side's figures at the last `timePassed`.
    var publisher = PublisherFigures()

    init(devicePort: String) {
        self.devicePort = devicePort
    }

    /// Whether commands can reach the device now.
    var deviceReachable: Bool { !(deviceState == .opening || deviceState.name == "absent") }
}
