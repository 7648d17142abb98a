/// Everything that happens around the simulated module: who is where, how noisy the radio is,
/// and what goes wrong when. Decoded from YAML (snake_case keys, seconds, metres, degrees),
/// or built in code; `Scenario.default` exercises every kind of proximity rule.
///
/// Time in a scenario starts at 0 when the simulated device is created. With a `duration` the
/// scenario either loops (paths, windows and faults repeat) or stops (everything freezes at
/// the end and `DeviceOutput.scenarioEnded` is emitted once).
public struct Scenario: Hashable, Sendable, Decodable {
    public var name: String?
    /// Seed of every random draw: same seed and same host traffic, same bytes.
    public var seed: UInt64
    /// Length of one run in seconds; nil runs forever on the last keyframes.
    public var duration: Double?
    public var atEnd: EndBehavior
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

    public init(name: String? = nil, seed: UInt64 = 1, duration: Double? = nil, atEnd: EndBehavior = .loop,
                device: ScenarioDevice = ScenarioDevice(), noise: ScenarioNoise = ScenarioNoise(),
                peers: [PeerTrack] = [], faults: [ScenarioFault] = []) {
        self.name = name
        self.seed = seed
        self.duration = duration
        self.atEnd = atEnd
        self.device = device
        self.noise = noise
        self.peers = peers
        self.faults = faults
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, seed, duration
        case atEnd = "at_end"
        case device, noise, peers, faults
    }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(CodingKeys.self)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decodeIfPresent(String.self, forKey: .name)
        seed = try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? 1
        duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        atEnd = try c.decodeIfPresent(EndBehavior.self, forKey: .atEnd) ?? .loop
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
        if let interval = device.rangingInterval {
            guard interval.isFinite else { throw .notFinite(field: "device.ranging_interval") }
            guard interval >= 0.001 else {
                throw .outOfRange(field: "device.ranging_interval", value: interval, expected: "≥ 0.001 seconds")
            }
        }
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
        }
        for (index, fault) in faults.enumerated() {
            try fault.validate(index: index)
            if let duration, atEnd == .loop, fault.at >= duration {
                throw .faultBeyondDuration(kind: fault.kind.name, at: fault.at, duration: duration)
            }
        }
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
