/// Everything that happens around the simulated module: who is where, how noisy the radio is,
/// and what goes wrong when. Decoded from YAML (snake_case keys, seconds, metres, degrees),
/// or built in code; `Scenario.default` exercises every kind of proximity rule.
///
/// Time in a scenario starts at 0 when the simulated device is created (`clock: start`), or is
/// the wall clock modulo `duration` (`clock: wall`) so that simulated gateways in separate
/// processes see a peer at the same place at the same moment. With a `duration` the scenario
/// either loops (paths, windows and faults repeat) or stops (everything freezes at the end and
/// `DeviceOutput.scenarioEnded` is emitted once).
public struct Scenario: Hashable, Sendable, Decodable {
    public var name: String?
    /// Seed of every random draw: same seed and same host traffic, same bytes.
    public var seed: UInt64
    /// Length of one run in seconds; nil runs forever on the last keyframes.
    public var duration: Double?
    public var atEnd: EndBehavior
    /// What scene time 0 is: the device's start, or a wall-clock multiple of `duration`.
    public var clock: TimeBase
    public var device: ScenarioDevice
    public var noise: ScenarioNoise
    public var peers: [PeerTrack]
    public var faults: [ScenarioFault]

    public enum EndBehavior: String, Hashable, Sendable, Decodable {
        /// Start over at 0 (the default: a demo that runs all day).
        case loop
        /// Freeze at `duration` and tell the runner (`DeviceOutput.scenarioEnded`).
        case stop
    }

    /// Where scene time comes from.
    public enum TimeBase: String, Hashable, Sendable, Decodable {
        /// 0 when the simulated device starts (the default: every run replays the scene from
        /// its beginning, reproducibly).
        case start
        /// Wall-clock seconds since the epoch modulo `duration`: every process started from the
        /// same scenario file agrees on the scene time, whenever it was started, as far as the
        /// hosts' clocks agree (NTP keeps that to milliseconds). Needs a looping duration.
        case wall
    }

    public init(name: String? = nil, seed: UInt64 = 1, duration: Double? = nil, atEnd: EndBehavior = .loop,
                clock: TimeBase = .start, device: ScenarioDevice = ScenarioDevice(), noise: ScenarioNoise = ScenarioNoise(),
                peers: [PeerTrack] = [], faults: [ScenarioFault] = []) {
        self.name = name
        self.seed = seed
        self.duration = duration
        self.atEnd = atEnd
        self.clock = clock
        self.device = device
        self.noise = noise
        self.peers = peers
        self.faults = faults
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, seed, duration
        case atEnd = "at_end"
        case clock, device, noise, peers, faults
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? 1
        duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        atEnd = try c.decodeIfPresent(EndBehavior.self, forKey: .atEnd) ?? .loop
        clock = try c.decodeIfPresent(TimeBase.self, forKey: .clock) ?? .start
        device = try c.decodeIfPresent(ScenarioDevice.self, forKey: .device) ?? ScenarioDevice()
        noise = try c.decodeIfPresent(ScenarioNoise.self, forKey: .noise) ?? ScenarioNoise()
        peers = try c.decodeIfPresent([PeerTrack].self, forKey: .peers) ?? []
        faults = try c.decodeIfPresent([ScenarioFault].self, forKey: .faults) ?? []
        do {
            try validate()
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath,
                                                                    debugDescription: error.description, underlyingError: error))
        }
    }

    /// Checks everything a decoder cannot: ordering, ranges, windows, duplicates.
    public func validate() throws(ScenarioError) {
        if let duration {
            guard duration.isFinite else { throw .notFinite(field: "duration") }
            guard duration > 0 else { throw .outOfRange(field: "duration", value: duration, expected: "> 0 seconds") }
        }
        // With `stop`, a gateway started late in the cycle would end within seconds, at a
        // moment set by the wall clock: never what a shared scene is meant for.
        if clock == .wall, duration == nil || atEnd != .loop { throw .wallClockNeedsLoop }
        try device.validate()
        for (field, value) in [("noise.sigma", noise.sigma), ("noise.angle_sigma", noise.angleSigma)] {
            guard value.isFinite else { throw .notFinite(field: field) }
            guard value >= 0 else { throw .outOfRange(field: field, value: value, expected: "≥ 0") }
        }
        guard noise.dropoutProbability.isFinite, (0...1).contains(noise.dropoutProbability) else {
            throw .outOfRange(field: "noise.dropout_probability", value: noise.dropoutProbability, expected: "0…1")
        }
        var seen = Set<UInt16>()
        for peer in peers {
            guard seen.insert(peer.address).inserted else { throw .duplicatePeer(address: peer.address) }
            try peer.validate()
            // A start the scene never reaches would leave the phone silent without a word.
            if let startAt = peer.phone?.startAt, let duration, startAt >= duration {
                throw .outOfRange(field: "peers[\(peer.label)].phone.start_at", value: startAt,
                                  expected: "< duration (\(duration) s)")
            }
        }
        for (index, fault) in faults.enumerated() {
            try fault.validate(index: index)
            if let duration, atEnd == .loop, fault.at >= duration {
                throw .faultBeyondDuration(kind: fault.kind.name, at: fault.at, duration: duration)
            }
        }
    }

    /// True when some peer's path is given in site coordinates: devices then need a gateway
    /// position.
    public var placesPeersInSiteFrame: Bool { peers.contains(where: \.isSiteFrame) }

    /// The device time at which scene time is 0, for a device powered on at `monotonicNow`
    /// (device time: any monotonic clock) while the wall clock reads `wallNow` (seconds since
    /// the epoch). Pass the result as `SimulatedDevice`'s `startTime` and `monotonicNow` as its
    /// `poweredOnAt`.
    ///
    /// With `clock: start` that is simply `monotonicNow`. With `clock: wall` it is
    /// `monotonicNow - (wallNow mod duration)`: the device then wakes up at scene time
    /// `wallNow mod duration`, the same scene time every other process computes at that moment,
    /// and from then on follows its monotonic clock, which a wall-clock step cannot disturb.
    /// The two clocks are read once, so alignment is as good as the hosts' wall clocks were at
    /// start; drift between them afterwards is parts per million. Pure, so the computation is
    /// tested with given clock values while the device itself stays clock-free.
    public func startTime(monotonicNow: Double, wallNow: Double) -> Double {
        guard clock == .wall, let duration, duration > 0, wallNow.isFinite else { return monotonicNow }
        var phase = wallNow.truncatingRemainder(dividingBy: duration)
        if phase < 0 { phase += duration }  // a wall clock before 1970: still a phase in [0, duration)
        return monotonicNow - phase
    }

    /// Scenario time for `elapsed` seconds since the start: wrapped when looping, frozen at the
    /// end when stopping.
    public func sceneTime(_ elapsed: Double) -> Double {
        guard let duration else { return elapsed }
        switch atEnd {
        case .loop: return elapsed.truncatingRemainder(dividingBy: duration)
        case .stop: return min(elapsed, duration)
        }
    }

    /// The peer configured with `address`, if any.
    public func peer(_ address: UInt16) -> PeerTrack? { peers.first { $0.address == address } }
}
