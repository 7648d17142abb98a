import DeviceLink
import UCI
import Vocabulary

/// iPhones (apple-interop.md §5): the gateway is a Nearby Interaction accessory. `phone_session`
/// with `"platform": "ios"` hands out accessory configuration data at once; iOS chooses the
/// whole session from it, and `phone_session_start` with iOS's shareable configuration data opens
/// that session on the device, answered once it ranges. A new NISession run of the app brings a
/// new session id, IV and address: its `phone_session_start` replaces the running session under
/// the same name.
extension PhoneSessions {
    static let startRequestName = "phone_session_start"

    /// `phone_session` with `"platform": "ios"`. `random` draws the gateway's address in the
    /// iPhone's session.
    mutating func prepareAccessory(_ request: IPhoneSessionRequest.Accessory, reply: Reply, now: Double,
                                   using random: inout some RandomNumberGenerator) -> Output {
        var out = Output()
        func refuse(_ text: String) -> Output {
            out.answers.append(Answer(request: Self.requestName, reply: reply, result: .failure(PhoneRequestError(text))))
            return out
        }
        guard settings.enabled else { return refuse("phone sessions are disabled on this gateway (phones.enabled: false)") }
        let name = request.name
        if let problem = nameProblem(name) { return refuse(problem) }
        if let holder = phones[name] {
            return refuse(holder.platform == .ios
                          ? "the iPhone \(name) ranges already; after a new NISession run, send phone_session_start again "
                            + "with iOS's new shareable configuration data"
                          : "the name \"\(name)\" is in use by the Android phone at \(WireOrderAddress.text(of: holder.address))")
        }
        let timeout = settings.apple.accessoryDataTimeout.seconds
        if var pending = accessories[name] {
            // Asked again (an app restarted before starting): the same configuration, valid anew.
            pending.expires = now + timeout
            accessories[name] = pending
        } else {
            guard phones.count + waitingAccessories < settings.maximum else {
                return refuse("\(settings.maximum) phones range already (phones.max)")
            }
            guard let address = freeAddress(using: &random) else { return refuse("no free short address for the gateway's side") }
            let apple = settings.apple
            let data = AccessoryConfigurationData(
                version: apple.uwbConfigVersion, preferredUpdateRate: request.updateRate ?? apple.preferredUpdateRate, chipset: apple.chipset,
                role: apple.role, address: (UInt8(address & 0xFF), UInt8(address >> 8)), clockDriftPPM: apple.clockDriftPPM,
                requested: apple.requested)
            accessories[name] = Accessory(data: data, address: address, expires: now + timeout)
            out.logs.append("phone \(name): accessory configuration handed out (gateway \(WireOrderAddress.text(of: address)), "
                            + "valid \(Int(timeout.rounded())) s)")
        }
        let accessory = accessories[name]!
        out.answers.append(Answer(request: Self.requestName, reply: reply, result: .success([
            JSONMember("name", .string(name)),
            JSONMember("accessory_configuration_data", .string(Base64.encode(accessory.data.bytes))),
            JSONMember("gateway_address", .string(WireOrderAddress.text(of: accessory.address))),
            JSONMember("gateway_role", .string(accessory.data.role == .responder ? "controlee" : "controller")),
            JSONMember("uwb_config_version", .string(accessory.data.version.rawValue)),
            JSONMember("valid_for_ms", .int(Int64((timeout * 1000).rounded()))),
        ])))
        return out
    }

    /// `phone_session_start`: the session iOS chose, opened on the device; answered once it ranges.
    mutating func startIPhone(_ request: IPhoneSessionRequest.Start, reply: Reply, now: Double, reportToken: String) -> Output {
        var out = Output()
        func refuse(_ text: String) -> Output {
            out.answers.append(Answer(request: Self.startRequestName, reply: reply, result: .failure(PhoneRequestError(text))))
            return out
        }
        let again = "; invalidate the NISession and run a new one"
        guard settings.enabled else { return refuse("phone sessions are disabled on this gateway (phones.enabled: false)") }
        let name = request.name
        guard let accessory = accessories[name] else {
            return refuse("no accessory configuration is waiting for \"\(name.prefix(64))\": it expired after "
                          + "\(Int(settings.apple.accessoryDataTimeout.seconds.rounded())) s, or was never asked for: ask phone_session again")
        }
        let running = phones[name]
        if let running, sessions[running.sessionID]?.ranging != true {
            return refuse("the iPhone \(name)'s session is still opening; wait for its answer")
        }
        let blob = request.shareable
        if blob.sessionID == gateway.sessionID || sessions[blob.sessionID] != nil {
            return refuse("session id \(blob.sessionID) is in use on this gateway" + again)
        }
        let phone = UInt16(blob.phoneAddress[0]) | UInt16(blob.phoneAddress[1]) << 8
        let text = WireOrderAddress.text(of: phone)
        if phone == accessory.address || phone == gateway.address || phone == 0xFFFF || phone == 0xFFFE {
            return refuse("the iPhone's address \(text) is the gateway's own or a broadcast address" + again)
        }
        if let peer = gateway.peers.first(where: { $0.address.value == phone }) {
            return refuse("the iPhone's address \(text) is the configured peer \(peer.displayName)'s" + again)
        }
        if let other = phones.values.first(where: { ($0.address == phone || $0.replacing == phone) && $0.name != name }) {
            return refuse("the iPhone's address \(text) is in use by the phone \(other.name)" + again)
        }
        if accessories.contains(where: { $0.key != name && $0.value.address == phone }) {
            return refuse("the iPhone's address \(text) is the gateway's in another iPhone's session" + again)
        }
        guard let key = blob.sessionKeyInfo else { return refuse("the STS IV is not six bytes" + again) }

        let air = AirParameters(preambleCodeIndex: blob.preambleCodeIndex, slotsPerRound: UInt8(blob.slotsPerRound),
                                slotDurationRSTU: blob.slotDurationRSTU, hopping: blob.hopping,
                                rangingRoundControl: blob.rangingRoundControl, sessionKeyInfo: key)
        var configuration = RangingSessionConfiguration(
            role: accessory.data.role == .responder ? .controlee : .controller, sessionID: blob.sessionID, ownAddress: accessory.address,
            peers: [phone], channel: blob.channel, rangingIntervalMilliseconds: UInt32(blob.rangingIntervalMilliseconds), air: air)
        configuration.oneToMany = false
        configuration.parameterSet = .appleNearbyInteraction

        var replacing: UInt16?
        if let running {
            // A new NISession run: its old session goes, the name stays on the core until the
            // new one ranges.
            replacing = running.routedAddress
            sessions[running.sessionID] = nil
            out.deviceEvents.append(.closeSession(sessionID: running.sessionID, reason: "the iPhone ran a new NISession"))
            out.logs.append("phone \(name): a new NISession run replaces session \(running.sessionID)")
        }
        phones[name] = Phone(name: name, address: phone, sessionID: blob.sessionID, since: now, platform: .ios, replacing: replacing,
                             reportToken: reportToken)
        sessions[blob.sessionID] = Session(configuration: configuration, configID: 0, updateRate: .automatic,
                                           opening: Waiting(reply: reply, name: name, address: phone,
                                                            data: startAnswer(name, blob, phone: phone, reportToken: reportToken),
                                                            request: Self.startRequestName))
        out.deviceEvents.append(.openSession(configuration))
        return out
    }

    /// What the app learns once the device ranges: the session as the gateway runs it (no IV:
    /// key material is never published).
    private func startAnswer(_ name: String, _ blob: ShareableConfigurationData, phone: UInt16, reportToken: String) -> [JSONMember] {
        let letters = blob.countryCode.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
        return [JSONMember("name", .string(name)),
                JSONMember("session_id", .int(Int64(blob.sessionID))),
                JSONMember("phone_address", .string(WireOrderAddress.text(of: phone))),
                JSONMember("complex_channel", .object([JSONMember("channel", .int(Int64(blob.channel))),
                                                       JSONMember("preamble_index", .int(Int64(blob.preambleCodeIndex)))])),
                JSONMember("slots_per_round", .int(Int64(blob.slotsPerRound))),
                JSONMember("slot_duration_rstu", .int(Int64(blob.slotDurationRSTU))),
                JSONMember("ranging_interval_ms", .int(Int64(blob.rangingIntervalMilliseconds))),
                JSONMember("hopping", .bool(blob.hopping)),
                JSONMember("ranging_round_control", .int(Int64(blob.rangingRoundControl))),
                JSONMember("country_code", letters ? .string(String(decoding: blob.countryCode, as: UTF8.self)) : .null),
                JSONMember("version", .string(blob.version.rawValue)),
                JSONMember("report_token", .string(reportToken))]
    }

    /// Why `name` cannot be an iPhone's, or nil.
    private func nameProblem(_ name: String) -> String? {
        let segment = TopicSegment.sanitize(name)
        if let peer = gateway.peers.first(where: { $0.topicSegment == segment }) {
            return "the name \"\(name)\" is the configured peer \(peer.displayName)'s; choose another"
        }
        if let other = phones.values.first(where: { TopicSegment.sanitize($0.name) == segment && $0.name != name }) {
            return "the name \"\(name)\" gives the same topic as the phone \(other.name)'s"
        }
        if let other = accessories.keys.first(where: { TopicSegment.sanitize($0) == segment && $0 != name }) {
            return "the name \"\(name)\" gives the same topic as the iPhone \(other)'s"
        }
        return nil
    }

    /// A short address for the gateway's side of an iPhone's session that nothing else uses:
    /// not a broadcast, the device's own, a peer's, a phone's or another accessory's.
    private func freeAddress(using random: inout some RandomNumberGenerator) -> UInt16? {
        for _ in 0..<64 {
            let candidate = UInt16.random(in: 1...0xFFFD, using: &random)
            if candidate == gateway.address || gateway.peers.contains(where: { $0.address.value == candidate }) { continue }
            if phones.values.contains(where: { $0.address == candidate || $0.replacing == candidate }) { continue }
            if accessories.values.contains(where: { $0.address == candidate }) { continue }
            return candidate
        }
        return nil
    }
}
