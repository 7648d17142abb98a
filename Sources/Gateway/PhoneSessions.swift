import DeviceLink
import UCI
import Vocabulary

/// The phones ranging with the gateway in sessions they asked for (`phone_session`), and the
/// decisions about them: which session a request opens or joins, what the phone is told, when a
/// phone that stopped ranging is let go. Pure: requests, device news, measurements and the time
/// go in; device events, answers and peer changes come out (`PhoneSessions.Output`).
///
/// Android: config 1 (unicast) is one session per phone, the gateway in the opposite role.
/// Config 2 (one-to-many) is one session with the gateway as controller: the first phone opens
/// it, later ones join through the multicast list and share its id, key and interval. iPhones
/// (`PhoneSessions+IPhone.swift`) are one unicast session each, on the terms iOS chose.
struct PhoneSessions {
    /// What the shell must do after an input.
    struct Output: Sendable {
        var deviceEvents: [DeviceSession.Event] = []
        /// Answers to requests: the request's name and id, and either the data or the error.
        var answers: [Answer] = []
        var joined: [(name: String, address: UInt16, sessionID: UInt32)] = []
        /// A phone ranges on under its name in a new session, at a new address (an iPhone's new
        /// NISession run): its peer state carries on.
        var moved: [(name: String, from: UInt16, to: UInt16, sessionID: UInt32)] = []
        var left: [UInt16] = []
        var logs: [String] = []
    }

    struct Answer: Sendable {
        var request: String
        var reply: Reply
        var result: Result<[JSONMember], PhoneRequestError>
    }

    static let requestName = "phone_session"
    static let stopRequestName = "phone_session_stop"

    /// The gateway's side of the exchange.
    struct Gateway: Sendable {
        var address: UInt16
        var channel: UInt8
        /// Session ids and addresses the configured session uses.
        var sessionID: UInt32
        var peers: [AgentConfiguration.Peer]
    }

    struct Session {
        var configuration: RangingSessionConfiguration
        /// Android's Jetpack config id (0 for an iPhone's session) and update rate: what a phone
        /// joining a one-to-many session must ask for.
        var configID: Int
        var updateRate: PhoneSessionRequest.UpdateRate
        var ranging = false
        /// The request that opened it, until the device ranges (or fails to).
        var opening: Waiting?
        /// Changes of the peer list sent to the device, in order: each gets one `updated` or
        /// `failed` back.
        var updates: [Update] = []
        /// Phones that asked to join while the session was still opening.
        var joinsAfterStart: [Waiting] = []
    }

    /// A request waiting for the device: answered with `data` once the device did its part.
    struct Waiting {
        var reply: Reply
        var name: String
        var address: UInt16
        var data: [JSONMember]
        /// The request it answers: `phone_session`, or an iPhone's `phone_session_start`.
        var request = PhoneSessions.requestName
    }

    enum Update {
        case join(Waiting)
        case leave
    }

    struct Phone {
        var name: String
        var address: UInt16
        var sessionID: UInt32
        var since: Double
        var lastRound: Double?
        var platform: PhoneSessionRequest.Platform = .android
        /// While an iPhone's new session opens: the address its name still ranges under on the
        /// core, until the new one ranges.
        var replacing: UInt16?
        /// What the phone's reports must carry (`report_token` of its answer): new per session.
        var reportToken = ""

        /// The address the core knows the phone by.
        var routedAddress: UInt16 { replacing ?? address }
    }

    /// An iPhone's accessory configuration data, from `phone_session` until it is used and for as
    /// long as the session it opened ranges (a new NISession run of the app uses it again).
    struct Accessory {
        var data: AccessoryConfigurationData
        /// The gateway's short address in the iPhone's session, random per accessory.
        var address: UInt16
        var expires: Double
    }

    var settings: PhoneSettings
    var gateway: Gateway
    // One owner, two files: the iPhone half of the decisions lives in PhoneSessions+IPhone.swift.
    var sessions: [UInt32: Session] = [:]
    var phones: [String: Phone] = [:]
    var accessories: [String: Accessory] = [:]

    init(settings: PhoneSettings, gateway: Gateway) {
        self.settings = settings
        self.gateway = gateway
    }

    var isEmpty: Bool { phones.isEmpty }
    /// Accessory configurations handed out that no session uses yet: each holds a phone's place.
    var waitingAccessories: Int { accessories.keys.filter { phones[$0] == nil }.count }
    var names: [String] { phones.keys.sorted() }

    /// A `phone_session` request. `sessionID` and `key` are fresh random draws the session uses
    /// unless the request or the settings give them.
    mutating func request(_ request: PhoneSessionRequest, reply: Reply, now: Double, sessionID drawnID: UInt32,
                          key drawnKey: SessionKeyInfo, reportToken: String) -> Output {
        var out = Output()
        func refuse(_ text: String) -> Output {
            out.answers.append(Answer(request: Self.requestName, reply: reply, result: .failure(PhoneRequestError(text))))
            return out
        }
        guard settings.enabled else { return refuse("phone sessions are disabled on this gateway (phones.enabled: false)") }
        let address = request.phoneAddress
        let text = WireOrderAddress.text(of: address)
        if address == gateway.address || address == 0xFFFF || address == 0xFFFE {
            return refuse("phone_address \(text) is the gateway's own or a broadcast address; create a new session scope on the phone")
        }
        if let peer = gateway.peers.first(where: { $0.address.value == address }) {
            return refuse("phone_address \(text) is the address of the configured peer \(peer.displayName); create a new session scope on the phone")
        }
        let segment = TopicSegment.sanitize(request.name)
        if let peer = gateway.peers.first(where: { $0.topicSegment == segment }) {
            return refuse("the name \"\(request.name)\" is the configured peer \(peer.displayName)'s; choose another")
        }
        if let other = phones.values.first(where: { $0.address == address && $0.name != request.name }) {
            return refuse("phone_address \(text) is in use by the phone \(other.name)")
        }
        if let other = phones.values.first(where: { TopicSegment.sanitize($0.name) == segment && $0.name != request.name }) {
            return refuse("the name \"\(request.name)\" gives the same topic as the phone \(other.name)'s")
        }
        if let (other, _) = accessories.first(where: { TopicSegment.sanitize($0.key) == segment }) {
            return refuse("the name \"\(request.name)\" is prepared for an iPhone (\(other)); choose another")
        }
        if accessories.values.contains(where: { $0.address == address }) {
            return refuse("phone_address \(text) is the gateway's address in an iPhone's session; create a new session scope on the phone")
        }
        // A name in use is the running phone's: taken over only when asked (`replace: true`, an
        // app restarted with a new address) or by the same address asking again (a new scope);
        // the old session goes first.
        if let holder = phones[request.name] {
            guard request.replace || holder.address == address else {
                return refuse("the name \"\(request.name)\" is in use by the phone at \(WireOrderAddress.text(of: holder.address)); "
                              + "ask with \"replace\": true to end its session and take the name")
            }
            out = release(request.name, reason: "the phone asked for a new session", now: now)
        }
        guard phones.count + waitingAccessories < settings.maximum else {
            return refuse("\(settings.maximum) phones range already (phones.max)")
        }

        let key = request.sessionKeyInfo ?? settings.sessionKeyInfo ?? drawnKey
        if request.configID == 2, let (sessionID, session) = sessions.first(where: { $0.value.configID == 2 }) {
            // Phones join the one-to-many session on its terms.
            guard request.updateRate == session.updateRate else {
                return refuse("the one-to-many phone session runs at update_rate \(session.updateRate.rawValue) "
                              + "(\(session.configuration.rangingIntervalMilliseconds) ms); ask with that rate")
            }
            if let wanted = request.sessionID, wanted != sessionID {
                return refuse("the one-to-many phone session has session_id \(sessionID); ask without session_id or with that one")
            }
            guard phones.values.filter({ $0.sessionID == sessionID }).count < RangingSessionConfiguration.maximumPeers else {
                return refuse("the one-to-many phone session has \(RangingSessionConfiguration.maximumPeers) phones, the most a DWM3001C ranges with")
            }
            phones[request.name] = Phone(name: request.name, address: address, sessionID: sessionID, since: now, reportToken: reportToken)
            let waiting = Waiting(reply: reply, name: request.name, address: address,
                                  data: answer(request, session: session.configuration, sessionID: sessionID, reportToken: reportToken))
            if session.ranging {
                sessions[sessionID]?.updates.append(.join(waiting))
                out.deviceEvents.append(.updateSessionPeers(sessionID: sessionID, add: [address], remove: []))
            } else {
                sessions[sessionID]?.joinsAfterStart.append(waiting)
            }
            return out
        }
        var sessionID = request.sessionID ?? drawnID
        if let wanted = request.sessionID, let session = sessions[wanted], session.configID == 1 {
            return refuse("session \(wanted) is unicast (config_id 1) and has its phone; several phones range in one session with config_id 2")
        }
        if sessionID == gateway.sessionID || sessions[sessionID] != nil {
            guard request.sessionID == nil else { return refuse("session_id \(sessionID) is in use on this gateway; choose another") }
            sessionID = sessionID % PhoneSessionRequest.sessionIDs.upperBound + 1
        }
        let controller = request.phoneRole == .controlee
        var air = AirParameters.android
        air.sessionKeyInfo = key
        air.slotsPerRound = request.configID == 1 ? 6 : 20
        air.slotDurationRSTU = UInt16(request.slotDurationMilliseconds * 1200)
        air.preambleCodeIndex = request.preambleIndex ?? AirParameters.android.preambleCodeIndex
        var configuration = RangingSessionConfiguration(
            role: controller ? .controller : .controlee, sessionID: sessionID, ownAddress: gateway.address, peers: [address],
            channel: request.channel ?? gateway.channel,
            rangingIntervalMilliseconds: request.updateRate.intervalMilliseconds(configID: request.configID), air: air)
        configuration.oneToMany = request.configID == 2
        phones[request.name] = Phone(name: request.name, address: address, sessionID: sessionID, since: now, reportToken: reportToken)
        sessions[sessionID] = Session(configuration: configuration, configID: request.configID, updateRate: request.updateRate,
                                      opening: Waiting(reply: reply, name: request.name, address: address,
                                                       data: answer(request, session: configuration, sessionID: sessionID,
                                                                    reportToken: reportToken)))
        out.deviceEvents.append(.openSession(configuration))
        return out
    }

    /// The response's `data`: everything the app needs to build Jetpack's RangingParameters.
    private func answer(_ request: PhoneSessionRequest, session: RangingSessionConfiguration, sessionID: UInt32,
                        reportToken: String) -> [JSONMember] {
        Self.androidAnswerFields.members(AndroidAnswer(request: request, session: session, sessionID: sessionID, gatewayAddress: gateway.address,
                                                 startWithin: settings.noRangingTimeout, reportToken: reportToken))
    }

    struct AndroidAnswer {
        var request: PhoneSessionRequest
        var session: RangingSessionConfiguration
        var sessionID: UInt32
        var gatewayAddress: UInt16
        var startWithin: TimeSpan
        var reportToken: String
    }

    /// An address as Jetpack's `UwbAddress` takes it: bytes in wire order, `AB:CD`.
    static let wireOrderAddress = JSONSchema.string.with("pattern", "^[0-9A-F]{2}:[0-9A-F]{2}$")

    /// A session's `complex_channel` (channel and preamble), as both platforms' answers give it.
    static let complexChannel = PayloadFields<(channel: UInt8, preambleIndex: UInt8)>([
        .init(.channel, JSONSchema.integer.with("enum", .list([5, 9]))) { .int(Int64($0.channel)) },
        .init(.preambleIndex, JSONSchema.integer.minimum(9).maximum(12)) { .int(Int64($0.preambleIndex)) },
    ])

    static let androidAnswerFields = PayloadFields<AndroidAnswer>([
        .init(.name, JSONSchema.string.described("the peer's name in payloads and topics")) { .string($0.request.name) },
        .init(.configID, JSONSchema.integer.with("enum", .list(PhoneSessionRequest.configIDs.map { .int(Int64($0)) })).described("Jetpack's config id: 1 unicast, 2 one-to-many")) {
            .int(Int64($0.request.configID))
        },
        .init(.sessionID, .count) { .int(Int64($0.sessionID)) },
        .init(.sessionKeyInfo, JSONSchema.string.described("the static STS key, 16 hex digits")) { .string($0.session.air.sessionKeyInfo.description) },
        .init(.gatewayAddress, wireOrderAddress) { .string(WireOrderAddress.text(of: $0.gatewayAddress)) },
        .init(.gatewayRole, .enumeration(["controller", "controlee"])) { .string($0.session.role == .controller ? "controller" : "controlee") },
        .init(.phoneAddress, wireOrderAddress) { .string(WireOrderAddress.text(of: $0.request.phoneAddress)) },
        .init(.complexChannel, complexChannel.schema) {
            .object(complexChannel.members(($0.session.channel, $0.session.air.preambleCodeIndex)))
        },
        .init(.updateRate, .enumeration(PhoneSessionRequest.UpdateRate.allCases.map(\.rawValue))) { .string($0.request.updateRate.rawValue) },
        .init(.slotDurationMs, JSONSchema.integer.with("enum", .list([1, 2]))) { .int(Int64($0.session.air.slotDurationRSTU / 1200)) },
        .init(.rangingIntervalMs, JSONSchema.integer.minimum(1)) { .int(Int64($0.session.rangingIntervalMilliseconds)) },
        .init(.startWithinMs, JSONSchema.count.described("the phone must range within this long, or the session is let go")) {
            .int(Int64(($0.startWithin.seconds * 1000).rounded()))
        },
        .init(.reportToken, ReportToken.schema) { .string($0.reportToken) },
    ])

    /// The address the core knows the phone by whose reports arrive under the topic segment
    /// `segment` with `token`, or why such a report counts for nothing: only the phone that holds a
    /// ranging session under that name now, with its session's token.
    func reporter(segment: String, token: String) -> Result<UInt16, PhoneReport.Refusal> {
        guard let phone = phones.values.first(where: { TopicSegment.sanitize($0.name) == segment }),
              sessions[phone.sessionID]?.ranging == true else { return .failure(.noSession) }
        guard ReportToken.equal(phone.reportToken, token) else { return .failure(.wrongToken) }
        return .success(phone.routedAddress)
    }

    /// The answer to `phone_session_stop`: the name let go.
    static let stopAnswerFields = PayloadFields<String>([.init(.name, .string) { .string($0) }])

    /// A `phone_session_stop` request.
    mutating func stop(name: String, reply: Reply, now: Double) -> Output {
        guard phones[name] != nil else {
            var out = Output()
            if accessories.removeValue(forKey: name) != nil {
                out.logs.append("phone \(name): its accessory configuration is dropped on request")
                out.answers.append(Answer(request: Self.stopRequestName, reply: reply, result: .success(Self.stopAnswerFields.members(name))))
                return out
            }
            out.answers.append(Answer(request: Self.stopRequestName, reply: reply, result: .failure(PhoneRequestError("no phone named \"\(name.prefix(64))\" ranges here"))))
            return out
        }
        var out = release(name, reason: "stopped on request", now: now)
        out.answers.append(Answer(request: Self.stopRequestName, reply: reply, result: .success(Self.stopAnswerFields.members(name))))
        return out
    }

    /// What the device made of a session: answers to the requests that wait for it.
    mutating func news(sessionID: UInt32, _ news: RequestedSessionNews, now: Double) -> Output {
        var out = Output()
        guard var session = sessions[sessionID] else {
            // Nobody waits for it any more (its phone was let go while the device opened it).
            if news == .ranging { out.deviceEvents.append(.closeSession(sessionID: sessionID, reason: "no phone waits for it")) }
            return out
        }
        switch news {
        case .ranging:
            session.ranging = true
            if let opening = session.opening { admit(opening, sessionID: sessionID, now: now, &out) }
            session.opening = nil
            // Phones that asked while it was opening join now, one list update each.
            for waiting in session.joinsAfterStart {
                session.updates.append(.join(waiting))
                out.deviceEvents.append(.updateSessionPeers(sessionID: sessionID, add: [waiting.address], remove: []))
            }
            session.joinsAfterStart = []
            sessions[sessionID] = session
        case .updated:
            guard !session.updates.isEmpty else { break }
            if case let .join(waiting) = session.updates.removeFirst() { admit(waiting, sessionID: sessionID, now: now, &out) }
            sessions[sessionID] = session
        case let .failed(reason):
            if !session.ranging {
                // Opening failed: the session is gone, and the phones waiting for it with it.
                for waiting in [session.opening].compactMap({ $0 }) + session.joinsAfterStart { refuse(waiting, reason, &out) }
                sessions[sessionID] = nil
            } else if !session.updates.isEmpty {
                if case let .join(waiting) = session.updates.removeFirst() { refuse(waiting, reason, &out) }
                sessions[sessionID] = session
            }
        case let .closed(reason):
            sessions[sessionID] = nil
            let pending = [session.opening].compactMap { $0 } + session.joinsAfterStart
                + session.updates.compactMap { if case let .join(waiting) = $0 { waiting } else { nil } }
            for waiting in pending { refuse(waiting, reason, &out) }
            for phone in phones.values.sorted(by: { $0.name < $1.name }) where phone.sessionID == sessionID {
                phones[phone.name] = nil
                accessories[phone.name] = nil
                out.left.append(phone.routedAddress)
                out.logs.append("phone \(phone.name): session \(sessionID) ended: \(reason)")
            }
        }
        return out
    }

    /// The device ranges with a phone that waited: it is told, and ranges under its name.
    mutating func admit(_ waiting: Waiting, sessionID: UInt32, now: Double, _ out: inout Output) {
        guard let phone = phones[waiting.name], phone.address == waiting.address else { return }  // let go meanwhile: answered then
        phones[waiting.name]?.since = now
        if let old = phone.replacing {
            phones[waiting.name]?.replacing = nil
            out.moved.append((waiting.name, old, waiting.address, sessionID))
        } else {
            out.joined.append((waiting.name, waiting.address, sessionID))
        }
        out.answers.append(Answer(request: waiting.request, reply: waiting.reply, result: .success(waiting.data)))
    }

    /// The device could not take a phone that waited: it is told why, and forgotten.
    mutating func refuse(_ waiting: Waiting, _ reason: String, _ out: inout Output) {
        guard let phone = phones[waiting.name], phone.address == waiting.address else { return }
        phones[waiting.name] = nil
        // An iPhone's new session failed: the name's old one is already closed.
        if let old = phone.replacing {
            out.left.append(old)
            accessories[waiting.name] = nil
        }
        out.answers.append(Answer(request: waiting.request, reply: waiting.reply, result: .failure(PhoneRequestError(reason))))
    }

    /// A ranging round: phones with a successful measurement stay.
    mutating func ranged(_ info: SessionInfo, now: Double) {
        guard !phones.isEmpty else { return }
        for measurement in info.twoWayMeasurements where measurement.status == .ok {
            guard case let .short(address) = measurement.macAddress,
                  let name = phones.first(where: { $0.value.address == address })?.key else { continue }
            phones[name]?.lastRound = now
        }
    }

    /// When `expire` next has something to do: the phones of sessions that range (a phone still
    /// waiting for the device is answered by the device's news, whenever it comes).
    var nextDeadline: Double? {
        // Read after every input: a loop, not filtered copies.
        var earliest: Double?
        for phone in phones.values where sessions[phone.sessionID]?.ranging == true {
            let deadline = (phone.lastRound ?? phone.since) + settings.noRangingTimeout.seconds
            if deadline < earliest ?? .infinity { earliest = deadline }
        }
        for (name, accessory) in accessories where phones[name] == nil && accessory.expires < earliest ?? .infinity {
            earliest = accessory.expires
        }
        return earliest
    }

    /// Phones without a successful round for `noRangingTimeout` are let go: the phone itself
    /// gives up after 10 s (android-interop.md §9), and its next session has a new address.
    mutating func expire(now: Double) -> Output {
        var out = Output()
        for (name, accessory) in accessories.sorted(by: { $0.key < $1.key }) where phones[name] == nil && now >= accessory.expires {
            accessories[name] = nil
            out.logs.append("phone \(name): its accessory configuration was not used within "
                            + "\(Int(settings.apple.accessoryDataTimeout.seconds.rounded())) s and is dropped")
        }
        let limit = settings.noRangingTimeout.seconds
        for phone in phones.values.sorted(by: { $0.name < $1.name }) where now - (phone.lastRound ?? phone.since) >= limit {
            guard sessions[phone.sessionID]?.ranging == true else { continue }
            let seconds = Int(limit.rounded())
            let more = release(phone.name, reason: phone.lastRound == nil ? "no successful round within \(seconds) s of the start"
                               : "no successful round for \(seconds) s", now: now)
            out.deviceEvents += more.deviceEvents
            out.left += more.left
            out.logs += more.logs
        }
        return out
    }

    /// Ends one phone's part: its unicast session, or its place in the one-to-many session.
    /// A request of it still waiting for the device is answered now.
    mutating func release(_ name: String, reason: String, now: Double) -> Output {
        var out = Output()
        guard let phone = phones[name], var session = sessions[phone.sessionID] else {
            phones[name] = nil
            return out
        }
        out.left.append(phone.routedAddress)
        out.logs.append("phone \(name): \(reason)")
        accessories[name] = nil
        let pending = [session.opening].compactMap { $0 } + session.joinsAfterStart
            + session.updates.compactMap { if case let .join(waiting) = $0 { waiting } else { nil } }
        for waiting in pending where waiting.name == name { refuse(waiting, "the session closed: \(reason)", &out) }
        phones[name] = nil
        session.joinsAfterStart.removeAll { $0.name == name }
        let others = phones.values.contains { $0.sessionID == phone.sessionID }
        if others && session.ranging {
            // Its list update may still be on its way: the removal follows it.
            session.updates.append(.leave)
            sessions[phone.sessionID] = session
            out.deviceEvents.append(.updateSessionPeers(sessionID: phone.sessionID, add: [], remove: [phone.address]))
        } else {
            for waiting in pending where waiting.name != name { refuse(waiting, "the session closed: \(reason)", &out) }
            for other in phones.values.sorted(by: { $0.name < $1.name }) where other.sessionID == phone.sessionID {
                phones[other.name] = nil
                out.left.append(other.routedAddress)
            }
            sessions[phone.sessionID] = nil
            out.deviceEvents.append(.closeSession(sessionID: phone.sessionID, reason: reason))
        }
        return out
    }
}
