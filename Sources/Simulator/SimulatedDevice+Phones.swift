import UCI

/// Phones among the peers, Android phones and iPhones: they answer a round only while their
/// own session runs and the gateway's session matches it over the air (android-interop.md
/// §4–§9, apple-interop.md §4–§5).
extension SimulatedDevice {
    /// Starts a phone's session, as its app does after the exchange with the gateway, at
    /// `time` (after running the device up to it, like `receive`); returns what fell due.
    /// A phone that was already ranging starts over with the new parameters (a new exchange).
    /// Its place comes from the scenario peer with the phone's address (`parameters.address`,
    /// as `0xCDAB` for Jetpack's `"AB:CD"`); throws if there is none or a parameter is one
    /// Jetpack would refuse.
    public mutating func startPhone(_ parameters: PhoneRangingParameters, at time: Double) throws(ScenarioError) -> [DeviceOutput] {
        try parameters.validate()
        guard scenario.peer(parameters.address.shortAddress) != nil else {
            throw .phoneWithoutPeer(address: parameters.address.shortAddress)
        }
        return start(.android(parameters), at: time)
    }

    /// Starts an iPhone's session at `time`, as iOS does when the app runs its NISession with
    /// the gateway's accessory configuration data; returns what fell due. A running iPhone
    /// starts over (a new NISession run: new session id and IV). Its place is the scenario
    /// peer with the session's phone address, which must be declared an iPhone (`iphone:`).
    public mutating func startIPhone(_ session: IPhoneNearbySession, at time: Double) throws(ScenarioError) -> [DeviceOutput] {
        try session.validate()
        let address = session.address.shortAddress
        guard scenario.peer(address)?.iPhone != nil else { throw .iPhoneWithoutPeer(address: address) }
        return start(.iPhone(session), at: time)
    }

    private mutating func start(_ configuration: SimulatedPhone.Configuration, at time: Double) -> [DeviceOutput] {
        let address = configuration.address.shortAddress
        let out = advance(to: time)
        if let index = phones.firstIndex(where: { $0.address == address }) {
            phones[index].start(configuration, at: now)
        } else {
            var phone = SimulatedPhone(configuration)
            phone.start(configuration, at: now)
            phones.append(phone)
        }
        return out
    }

    /// Ends the phone's session at `time` (its app closed the session scope, or invalidated
    /// its NISession); from then on it answers no round until started again.
    public mutating func stopPhone(address: UWBAddress, at time: Double) -> [DeviceOutput] {
        let out = advance(to: time)
        if let index = phones.firstIndex(where: { $0.address == address.shortAddress }) { phones[index].stop() }
        return out
    }

    /// True while the phone with this address has a session running: started, and neither
    /// stopped nor given up.
    public func isPhoneRanging(address: UWBAddress) -> Bool {
        phones.first { $0.address == address.shortAddress }?.isRanging ?? false
    }

    /// One peer's measurement in a round of `session`: a phone answers only while it ranges
    /// and nothing differs; otherwise it is silent, reported as any peer that does not answer
    /// (RX timeout, uci.md §7 V11). A successful answer resets the phone's error streak.
    mutating func measure(_ address: UInt16, in session: SimulatedSession, model: RangingModel,
                          at t: Double) -> TwoWayRangingMeasurement {
        guard let index = phones.firstIndex(where: { $0.address == address }) else {
            // An iPhone whose app has not run its NISession yet.
            if scenario.peer(address)?.iPhone != nil { return RangingModel.timeout(address) }
            return model.measurement(for: address, at: t, session: session, rng: &noiseRNG)
        }
        guard phones[index].isRanging, phones[index].configuration.air.mismatches(with: session).isEmpty else {
            return RangingModel.timeout(address)
        }
        let measurement = model.measurement(for: address, at: t, session: session, rng: &noiseRNG)
        if measurement.status == .ok || measurement.status == .okNegativeDistanceReport { phones[index].lastSuccess = now }
        return measurement
    }

    /// Tells, once per distinct set, why a ranging phone cannot range with `session`. A
    /// session concerns a phone when it has the phone's session id, or, while no active
    /// session has that id, when it lists the phone as a peer (a session id mismatch).
    mutating func diagnosePhones(in session: SimulatedSession, into out: inout [DeviceOutput]) {
        for index in phones.indices where phones[index].isRanging {
            let phone = phones[index]
            let air = phone.configuration.air
            let id = air.sessionID
            let ownSessionRanges = sessions.contains { $0.state == .active && $0.sessionID == id }
            guard session.sessionID == id || (!ownSessionRanges && session.peers.contains(phone.address)) else { continue }
            let found = air.mismatches(with: session)
            if !found.isEmpty && found != phone.reported {
                out.append(.diagnostic("\(phone.title): no ranging: " + found.map(\.description).joined(separator: "; ")))
            }
            phones[index].reported = found
        }
    }

    /// The phone's error streak ran out: it ends its session.
    mutating func phoneGivesUp(_ index: Int, into out: inout [DeviceOutput]) {
        phones[index].stop()
        let seconds = Int(SimulatedPhone.giveUpAfter)
        out.append(.diagnostic("\(phones[index].label): no successful round for \(seconds) s, the phone stops the session"))
    }
}
