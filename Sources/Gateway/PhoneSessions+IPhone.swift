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
        out.answers.append(Answer(request: Self.requestName, reply: reply,
                                  result: .success(Self.accessoryAnswerFields.members(AccessoryAnswer(name: name, accessory: accessory, validFor: timeout)))))
        return out
    }

    struct AccessoryAnswer {
        var name: String
        var accessory: Accessory
        var validFor: Double
    }

    /// The answer to an iPhone's `phone_session`: what the app hands iOS.
    static let accessoryAnswerFields = PayloadFields<AccessoryAnswer>([
        .init(.name, .string) { .string($0.name) },
        .init(.accessoryConfigurationData, JSONSchema.string.with("contentEncoding", "base64")
                .described("for NINearbyAccessoryConfiguration(accessoryData:bluetoothPeerIdentifier:)")) {
            .string(Base64.encode($0.accessory.data.bytes))
        },
        .init(.gatewayAddress, wireOrderAddress) { .string(WireOrderAddress.text(of: $0.accessory.address)) },
        .init(.gatewayRole, .enumeration(["controller", "controlee"])) { .string($0.accessory.data.role == .responder ? "controlee" : "controller") },
        .init(.uwbConfigVersion, .string) { .string($0.accessory.data.version.rawValue) },
        .init(.validForMs, JSONSchema.count.described("phone_session_start must come within this long")) { .int(Int64(($0.validFor * 1000).rounded())) },
        ])

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
        Self.startAnswerFields.members(StartAnswer(name: name, blob: blob, phone: phone, reportToken: reportToken))
    }

    struct StartAnswer {
        var name: String
        var blob: ShareableConfigurationData
        var phone: UInt16
        var reportToken: String
    }

    static let startAnswerFields = PayloadFields<StartAnswer>([
        .init(.name, .string) { .string($0.name) },
        .init(.sessionID, .count) { .int(Int64($0.blob.sessionID)) },
        .init(.phoneAddress, wireOrderAddress) { .string(WireOrderAddress.text(of: $0.phone)) },
        .init(.complexChannel, complexChannel.schema) { .object(complexChannel.members(($0.blob.channel, $0.blob.preambleCodeIndex))) },
        .init(.slotsPerRound, .count) { .int(Int64($0.blob.slotsPerRound)) },
        .init(.slotDurationRstu, .count) { .int(Int64($0.blob.slotDurationRSTU)) },
        .init(.rangingIntervalMs, .count) { .int(Int64($0.blob.rangingIntervalMilliseconds)) },
        .init(.hopping, .boolean) { .bool($0.blob.hopping) },
        .init(.rangingRoundControl, JSONSchema.count.maximum(255)) { .int(Int64($0.blob.rangingRoundControl)) },
        .init(.countryCode, JSONSchema.string.orNull().described("two letters, as iOS sent them; null when they were not letters")) {
            let code = $0.blob.countryCode
            let letters = code.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
            return letters ? .string(String(decoding: code, as: UTF8.self)) : .null
        },
        .init(.version, .string) { .string($0.blob.version.rawValue) },
        .init(.reportToken, ReportToken.schema) { .string($0.reportToken) },
    ])

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
