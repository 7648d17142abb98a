import DeviceLink
import MQTTClient
import UCI
import Vocabulary

/// Phones as peers: `phone_session`, `phone_session_start` (iPhones) and `phone_session_stop`
/// requests, the sessions they open on the device, and the phones' names on the core. The decisions are `PhoneSessions`'; this
/// feeds it the requests, the device's news, the rounds and the time, and carries out what it
/// decides.
struct PhonesComponent: AgentComponent {
    private var sessions: PhoneSessions
    /// Session ids and keys are drawn from it: the system's random source in the agent (a key
    /// must not be predictable), a seeded one where a run must repeat.
    private var random: any RandomNumberGenerator

    private let topics: TopicTree
    /// A line per cause of a dropped report, at most once per 10 s each.
    private var reportDrops: [PhoneReport.Refusal: LogThrottle] = [:]

    init(configuration: AgentConfiguration, random: any RandomNumberGenerator) {
        sessions = PhoneSessions(settings: configuration.phones, gateway: Self.gateway(of: configuration))
        self.random = random
        topics = configuration.topics
    }

    private static func gateway(of configuration: AgentConfiguration) -> PhoneSessions.Gateway {
        PhoneSessions.Gateway(address: configuration.device.address.value, channel: configuration.device.channel,
                              sessionID: configuration.device.sessionID, peers: configuration.device.peers)
    }

    var subscriptions: [String] { [topics.phoneReportFilter] }
    var requests: [Request.Name] { [.phoneSession, .phoneSessionStart, .phoneSessionStop] }
    var nextDeadline: Double? { sessions.nextDeadline }

    mutating func answer(_ request: Request, _ core: inout AgentCore, at moment: AgentMoment) {
        switch request.name {
        case .phoneSession?:
            switch PhoneSessionRequest.platform(of: request.body) {
            case let .failure(problem): refuse(request, problem, &core)
            case .success(.android): askForAndroidSession(request, &core, at: moment)
            case .success(.ios): askForAccessory(request, &core, at: moment)
            }
        case .phoneSessionStart?:
            // Answered once the device ranges with the iPhone: the app then knows iOS's session runs.
            switch IPhoneSessionRequest.Start.parse(request.body) {
            case let .failure(problem): refuse(request, problem, &core)
            case let .success(start):
                guard core.status.deviceReachable else { return core.respond(to: request, failure: "no device (\(core.status.deviceState))") }
                guard core.paced(request, at: moment) else { return }
                carryOut(sessions.startIPhone(start, reply: request.reply, now: moment.monotonic,
                                              reportToken: ReportToken.random(using: &random)), &core, at: moment)
            }
        default:
            // `phone_session_stop`: `{"name": …}` (``stopBody``).
            guard case let .string(name)? = request.body[PayloadKey.name.text] else {
                return refuse(request, PhoneRequestError("name is required: the phone's name from its phone_session request"), &core)
            }
            guard core.paced(request, at: moment) else { return }
            carryOut(sessions.stop(name: name, reply: request.reply, now: moment.monotonic), &core, at: moment)
        }
    }

    /// The body of `phone_session_stop`; other members are ignored.
    static let stopBody = JSONSchema.object([Request.idProperty, PhoneSessionRequest.nameProperty]).with("additionalProperties", true)

    /// Answered once the device ranges (or failed to), not before: the app starts its side
    /// with what the answer says, and the phone gives up 10 s after that.
    private mutating func askForAndroidSession(_ request: Request, _ core: inout AgentCore, at moment: AgentMoment) {
        guard core.status.deviceReachable else { return core.respond(to: request, failure: "no device (\(core.status.deviceState))") }
        switch PhoneSessionRequest.parse(request.body) {
        case let .failure(problem): refuse(request, problem, &core)
        case let .success(phone):
            guard core.paced(request, at: moment) else { return }
            let id = UInt32.random(in: PhoneSessionRequest.sessionIDs, using: &random)
            let key = SessionKeyInfo.random(using: &random)
            let token = ReportToken.random(using: &random)
            carryOut(sessions.request(phone, reply: request.reply, now: moment.monotonic, sessionID: id, key: key, reportToken: token),
                     &core, at: moment)
        }
    }

    /// Answered at once: the accessory configuration data goes to iOS, whose answer comes back
    /// in `phone_session_start`. Nothing reaches the device yet.
    private mutating func askForAccessory(_ request: Request, _ core: inout AgentCore, at moment: AgentMoment) {
        switch IPhoneSessionRequest.Accessory.parse(request.body) {
        case let .failure(problem): refuse(request, problem, &core)
        case let .success(accessory):
            guard core.paced(request, at: moment) else { return }
            carryOut(sessions.prepareAccessory(accessory, reply: request.reply, now: moment.monotonic, using: &random), &core, at: moment)
        }
    }

    private func refuse(_ request: Request, _ problem: PhoneRequestError, _ core: inout AgentCore) {
        publish(PhoneSessions.Answer(request: request.rawName, reply: request.reply, result: .failure(problem)), &core)
    }

    /// A phone's report (`phone/<name>/report`): its angle goes to the core when it comes from
    /// the phone that holds the name's session, with its token, dated within `direction.max_age`
    /// of the gateway's clock; anything else is counted and said once per cause per 10 s.
    mutating func receive(_ message: MQTTMessage, _ core: inout AgentCore, at moment: AgentMoment) -> Bool {
        guard let segment = topics.phoneReportName(of: message.topic) else { return false }
        // Someone clearing a retained report: nothing to take or to say.
        if message.retained && message.payload.isEmpty { return true }
        switch admit(message, segment: segment, maximumAge: core.engine.rules.direction.maxAge, at: moment) {
        case let .failure(refusal):
            core.phoneReportDropped()
            let line = "dropped a phone report on \(Excerpt.quoted(segment)): \(refusal.rawValue) (\(refusal.explanation)); counted in metrics as phone_reports_dropped"
            for text in reportDrops[refusal, default: LogThrottle(window: 10)].lines(for: line, at: moment.monotonic) {
                core.log(.warning, text)
            }
        case let .success((address, report)):
            core.phoneReported(address: address, azimuthDeg: report.azimuthDeg, elevationDeg: report.elevationDeg,
                               measuredAt: report.ts, at: moment.time)
        }
        return true
    }

    private func admit(_ message: MQTTMessage, segment: String, maximumAge: Double,
                       at moment: AgentMoment) -> Result<(UInt16, PhoneReport), PhoneReport.Refusal> {
        guard !message.retained else { return .failure(.retained) }
        let report: PhoneReport
        switch PhoneReport.parse(message.payload, size: message.withheldPayloadBytes ?? message.payload.count) {
        case let .failure(refusal): return .failure(refusal)
        case let .success(read): report = read
        }
        let address: UInt16
        switch sessions.reporter(segment: segment, token: report.token) {
        case let .failure(refusal): return .failure(refusal)
        case let .success(found): address = found
        }
        if moment.time - report.ts > maximumAge { return .failure(.late) }
        if report.ts - moment.time > maximumAge { return .failure(.ahead) }
        return .success((address, report))
    }

    mutating func deviceNews(sessionID: UInt32, _ news: RequestedSessionNews, _ core: inout AgentCore, at moment: AgentMoment) {
        carryOut(sessions.news(sessionID: sessionID, news, now: moment.monotonic), &core, at: moment)
    }

    mutating func ranged(_ info: SessionInfo, _ core: inout AgentCore, at moment: AgentMoment) {
        sessions.ranged(info, now: moment.monotonic)
    }

    mutating func timePassed(_ core: inout AgentCore, at moment: AgentMoment) {
        guard let deadline = sessions.nextDeadline, moment.monotonic >= deadline else { return }
        carryOut(sessions.expire(now: moment.monotonic), &core, at: moment)
    }

    mutating func configurationReloaded(_ core: inout AgentCore, at moment: AgentMoment) {
        sessions.gateway = Self.gateway(of: core.configuration)
        sessions.settings = core.configuration.phones
    }

    private func carryOut(_ out: PhoneSessions.Output, _ core: inout AgentCore, at moment: AgentMoment) {
        for line in out.logs { core.log(.info, line) }
        for phone in out.joined {
            core.log(.info, "phone \(phone.name) (\(WireOrderAddress.text(of: phone.address))) ranges in session \(phone.sessionID)")
            core.addPhone(name: phone.name, address: phone.address, sessionID: phone.sessionID, at: moment.time)
        }
        for phone in out.moved {
            core.log(.info, "phone \(phone.name) (\(WireOrderAddress.text(of: phone.to))) ranges on in session \(phone.sessionID)")
            core.movePhone(name: phone.name, from: phone.from, to: phone.to, sessionID: phone.sessionID, at: moment.time)
        }
        for address in out.left { core.phoneLeft(address: address, at: moment.time) }
        for event in out.deviceEvents { core.act(.device(event)) }
        for answer in out.answers { publish(answer, &core) }
    }

    private func publish(_ answer: PhoneSessions.Answer, _ core: inout AgentCore) {
        let fields: [JSONMember] = switch answer.result {
        case let .success(data): Payloads.response(id: answer.reply.id, ok: true, data: .object(data))
        case let .failure(problem): Payloads.response(id: answer.reply.id, ok: false, error: problem.message)
        }
        core.respond(to: answer.request, via: answer.reply, fields)
    }
}
