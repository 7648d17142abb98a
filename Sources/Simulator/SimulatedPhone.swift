/// A phone in the simulated world: an Android phone's Jetpack parameters or an iPhone's
/// NISession, and where its session is.
///
/// The phone lives apart from the module: a reset or an unplug of the module does not touch
/// it, it only stops hearing the gateway. Like Android's UWB service it ends its session after
/// `giveUpAfter` seconds without a successful round (android-interop.md §9), and ranges again
/// only when its app starts a new session (a new exchange with the gateway). An iPhone gives up
/// too, after a time our sources do not tell (apple-interop.md §5): the simulator takes
/// Android's.
struct SimulatedPhone: Hashable, Sendable {
    /// Android's ranging-error streak timeout.
    static let giveUpAfter = 10.0

    /// What the phone's app started its session with.
    enum Configuration: Hashable, Sendable {
        case android(PhoneRangingParameters)
        case iPhone(IPhoneNearbySession)

        var air: PhoneAirConfiguration {
            switch self {
            case let .android(parameters): parameters.airConfiguration
            case let .iPhone(session): session.airConfiguration
            }
        }

        var address: UWBAddress {
            switch self {
            case let .android(parameters): parameters.address
            case let .iPhone(session): session.address
            }
        }
    }

    var configuration: Configuration
    /// Device time the current session started; nil while the phone is not ranging (never
    /// started, stopped, or given up).
    private(set) var startedAt: Double?
    /// Device time of the latest round with a measurement from this phone.
    var lastSuccess: Double?
    /// The mismatches last written as a diagnosis, so that each distinct set is told once.
    var reported: [PhoneMismatch] = []
    /// For a scenario's phone: the device time of its next start, and the loop period that
    /// repeats it.
    private(set) var nextScheduledStart: Double?
    private let schedulePeriod: Double?
    private let scheduledParameters: PhoneRangingParameters?

    /// A phone started from code only.
    init(_ configuration: Configuration) {
        self.configuration = configuration
        schedulePeriod = nil
        scheduledParameters = nil
    }

    /// A scenario's phone: its first start is the first pass through `startAt` at or after
    /// `poweredOnAt` (a start before it is one the phone made while the module was off, and
    /// has given up on since, or will soon: the simulator skips it rather than guess).
    init(_ phone: ScenarioPhone, startTime: Double, poweredOnAt: Double, period: Double?) {
        configuration = .android(phone.parameters)
        scheduledParameters = phone.parameters
        schedulePeriod = period
        guard let startAt = phone.startAt else {
            nextScheduledStart = nil
            return
        }
        var first = startTime + startAt
        if first < poweredOnAt - SimulatedDevice.timeTolerance {
            guard let period else {
                nextScheduledStart = nil
                return
            }
            first += ((poweredOnAt - first) / period).rounded(.up) * period
        }
        nextScheduledStart = first
    }

    var address: UInt16 { configuration.address.shortAddress }
    var isRanging: Bool { startedAt != nil }
    /// When the phone ends its session unless a round succeeds first.
    var giveUpTime: Double? { startedAt.map { max($0, lastSuccess ?? $0) + Self.giveUpAfter } }

    /// `phone 0xCDAB` or `iPhone 0x7570`, in uwb2mqtt's address notation.
    var label: String {
        switch configuration {
        case .android: "phone " + shortAddressText(address)
        case .iPhone: "iPhone " + shortAddressText(address)
        }
    }

    /// `phone 0xCDAB (config 1, controlee)`, `iPhone 0x7570 (NI 1.1, initiator)`.
    var title: String {
        switch configuration {
        case let .android(parameters): "\(label) (config \(parameters.configID), \(parameters.role.rawValue))"
        case let .iPhone(session):
            "\(label) (NI \(session.shareable.version.rawValue), \(session.deviceType == .controller ? "initiator" : "responder"))"
        }
    }

    /// A new session: the streak and the told mismatches start over.
    mutating func start(_ configuration: Configuration, at time: Double) {
        self.configuration = configuration
        startedAt = time
        lastSuccess = nil
        reported = []
    }

    /// The scenario's start due now; schedules the next pass.
    mutating func startScheduled(at time: Double) {
        start(scheduledParameters.map(Configuration.android) ?? configuration, at: time)
        nextScheduledStart = schedulePeriod.map { (nextScheduledStart ?? time) + $0 }
    }

    mutating func stop() {
        startedAt = nil
        reported = []
    }
}
