import UCI

/// Android phones among the peers: they answer a round only while their own session runs and
/// the gateway's session matches it over the air (android-interop.md §4–§9).
extension SimulatedDevice {
    /// Starts a phone's session, as its app does after the exchange with the gateway, at
    /// `time` (after running the device up to it, like `receive`); returns what fell due.
    /// A phone that was already ranging starts over with the new parameters (a new exchange).
    /// Its place comes from the scenario peer with the phone's address (`parameters.address`,
    /// as `0xCDAB` for Jetpack's `"AB:CD"`); throws if there is none or a parameter is one
    /// Jetpack would refuse.
    public mutating func startPhone(_ parameters: PhoneRangingParameters, at time: Double) throws(ScenarioError) -> [DeviceOutput] {
        try parameters.validate()
        let address = parameters.address.shortAddress
        guard scenario.peer(address) != nil else { throw .phoneWithoutPeer(address: address) }
        let out = advance(to: time)
        if let index = phones.firstIndex(where: { $0.address == address }) {
            phones[index].start(parameters, at: now)
        } else {
            var phone = SimulatedPhone(parameters: parameters)
            phone.start(parameters, at: now)
            phones.append(phone)
        }
        return out
    }

    /// Ends the phone's session at `time` (its app closed the session scope); from then on
    /// it answers no round until started again.
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
            return model.measurement(for: address, at: t, session: session, rng: &noiseRNG)
        }
        guard phones[index].isRanging, phones[index].parameters.airConfiguration.mismatches(with: session).isEmpty else {
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
            let id = phone.parameters.sessionID
            let ownSessionRanges = sessions.contains { $0.state == .active && $0.sessionID == id }
            guard session.sessionID == id || (!ownSessionRanges && session.peers.contains(phone.address)) else { continue }
            let found = phone.parameters.airConfiguration.mismatches(with: session)
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
