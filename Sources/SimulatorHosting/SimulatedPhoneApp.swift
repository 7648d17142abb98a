import Simulator
import UCI
import Vocabulary

/// The app of a simulated phone, as `run --simulate` plays it for a scenario's `app:` under a
/// peer's `iphone:` or `phone:` (`make demo`): the exchange a real app makes with the gateway
/// over MQTT (docs/phones.md), with the simulated iOS or Jetpack in the middle, and the reports of
/// what the phone sees of the gateway while it ranges. Pure: the time, the answers and the peer's
/// events go in; requests to publish, sessions to start and reports come out. Asks again whenever
/// its session ends, as an app that wants to keep ranging does.
struct SimulatedPhoneApp {
    /// The requests as the MQTT API names them, as a real app knows them.
    static let sessionRequest = "phone_session"
    static let startRequest = "phone_session_start"

    /// Which phone: an iPhone (two requests, iOS chooses the session), or an Android phone with
    /// the Jetpack parameters of its side (its role, address, config and rate; the rest comes
    /// from the gateway's answer).
    enum Kind {
        case iPhone
        case android(PhoneRangingParameters)
    }

    enum Output: Equatable {
        /// Publish `body` on `request/<request>`.
        case publish(request: String, body: String)
        /// iOS runs this NISession: the simulated iPhone listens from now on.
        case run(IPhoneNearbySession)
        /// Jetpack starts ranging with these parameters: the simulated Android phone answers from now on.
        case start(PhoneRangingParameters)
        /// Publish what the phone measured of the gateway on `phone/<name>/report` (the shell
        /// dates it): nil angles outside the phone's field of view.
        case report(token: String, azimuthDeg: Double?, elevationDeg: Double?, distanceM: Double?)
        case log(String)
    }

    private enum Step {
        case idle(until: Double)
        case askedSession(id: String, since: Double)
        case askedStart(id: String, since: Double)
        /// With the session's report token, the next report due and the interval between them.
        case ranging(token: String?, nextReport: Double, interval: Double)
    }

    let name: String
    let address: UWBAddress
    private let kind: Kind
    private let app: ScenarioPhoneApp
    /// Where the peer walks, for the distance its reports carry.
    private let track: PeerTrack?
    /// Scenario time at a monotonic time: the pointing path's clock, the simulator's.
    private let sceneTime: (Double) -> Double
    private var step: Step
    private var random: SplitMix64
    private var requests = 0

    /// An answer that does not come within this long is asked for again.
    static let answerTimeout = 20.0
    /// After a refusal or the end of a session.
    static let retryAfter = 3.0

    init(_ kind: Kind, app: ScenarioPhoneApp, address: UWBAddress, startingAt start: Double, seed: UInt64, track: PeerTrack? = nil,
         sceneTime: @escaping (Double) -> Double = { $0 }) {
        name = app.name
        self.kind = kind
        self.app = app
        self.address = address
        self.track = track
        self.sceneTime = sceneTime
        step = .idle(until: start + app.startAt)
        random = SplitMix64(seed: seed)
    }

    var nextDeadline: Double? {
        switch step {
        case let .idle(until): until
        case let .askedSession(_, since), let .askedStart(_, since): since + Self.answerTimeout
        case let .ranging(token, nextReport, _): token != nil && !app.pointing.isEmpty ? nextReport : nil
        }
    }

    mutating func timePassed(_ now: Double) -> [Output] {
        guard let deadline = nextDeadline, now >= deadline else { return [] }
        guard case let .ranging(token?, _, interval) = step else { return askForSession(at: now) }
        step = .ranging(token: token, nextReport: now + interval, interval: interval)
        let t = sceneTime(now)
        let seen = app.angle(at: t)
        return [.report(token: token, azimuthDeg: seen?.azimuth, elevationDeg: seen?.elevation, distanceM: track?.pose(at: t)?.distance)]
    }

    /// A message on `response/<request>`.
    mutating func answered(_ request: String, payload: [UInt8], at now: Double) -> [Output] {
        guard case let .object(members)? = try? JSONReader.value(payload) else { return [] }
        let answer = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        guard case let .string(id)? = answer["id"] else { return [] }
        switch step {
        case let .askedSession(waiting, _) where id == waiting && request == Self.sessionRequest:
            guard case let .android(own) = kind else { return accessoryOffered(answer, at: now) }
            guard answer["ok"] == .bool(true), case let .object(members)? = answer["data"],
                  let parameters = Self.jetpackParameters(Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 }), own)
            else { return refused(answer, at: now) }
            step = .ranging(token: Self.token(in: answer), nextReport: now, interval: Double(parameters.rangingIntervalMilliseconds) / 1000)
            return [.start(parameters), .log("Android app \(name): ranging")]
        case let .askedStart(waiting, _) where id == waiting && request == Self.startRequest:
            guard answer["ok"] == .bool(true) else { return refused(answer, at: now) }
            // A report per ranging round, as NISession updates its objects.
            var interval = 0.2
            if case let .int(milliseconds)? = answer["data"]?["ranging_interval_ms"], (50...5000).contains(milliseconds) {
                interval = Double(milliseconds) / 1000
            }
            step = .ranging(token: Self.token(in: answer), nextReport: now, interval: interval)
            return [.log("iPhone app \(name): ranging")]
        default:
            return []
        }
    }

    /// iOS's side of `phone_session`'s answer: the accessory configuration data run in an
    /// NISession, and its shareable configuration data sent back.
    private mutating func accessoryOffered(_ answer: [String: JSONValue], at now: Double) -> [Output] {
        guard answer["ok"] == .bool(true), case let .string(text)? = answer["data"]?["accessory_configuration_data"],
              let bytes = Base64.decode(text) else { return refused(answer, at: now) }
        do throws(AccessoryConfigurationData.Problem) {
            let session = try IPhoneNearbySession(accessoryConfigurationData: bytes, address: address, using: &random)
            let next = nextID()
            step = .askedStart(id: next, since: now)
            return [.run(session), .publish(request: Self.startRequest, body: JSONValue.object([
                JSONMember("id", .string(next)), JSONMember("name", .string(name)),
                JSONMember("shareable_configuration_data", .string(Base64.encode(session.shareableConfigurationData)))]).json)]
        } catch {
            step = .idle(until: now + Self.retryAfter)
            return [.log("iPhone app \(name): iOS refuses the accessory configuration data: \(error)")]
        }
    }

    private static func token(in answer: [String: JSONValue]) -> String? {
        if case let .string(text)? = answer["data"]?["report_token"] { text } else { nil }
    }

    /// Jetpack's `RangingParameters` from `phone_session`'s `data`, as an app builds them, on
    /// the phone's own side `own`; nil when the answer lacks something.
    static func jetpackParameters(_ data: [String: JSONValue], _ own: PhoneRangingParameters) -> PhoneRangingParameters? {
        guard case let .int(sessionID)? = data["session_id"], let id = UInt32(exactly: sessionID),
              case let .string(key)? = data["session_key_info"], let keyInfo = SessionKeyInfo(hex: key),
              case let .string(gateway)? = data["gateway_address"], let gatewayAddress = UWBAddress(gateway),
              case let .int(channel)? = data["complex_channel"]?["channel"], let number = UInt8(exactly: channel),
              case let .int(preamble)? = data["complex_channel"]?["preamble_index"], let index = UInt8(exactly: preamble)
        else { return nil }
        var parameters = own
        parameters.sessionID = id
        parameters.sessionKeyInfo = keyInfo
        parameters.gatewayAddress = gatewayAddress
        parameters.channel = number
        parameters.preambleIndex = index
        return parameters
    }

    /// The peer's `event`: a session the gateway ended means asking again.
    mutating func event(payload: [UInt8], at now: Double) -> [Output] {
        guard case .ranging = step, case let .object(members)? = try? JSONReader.value(payload) else { return [] }
        let event = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        guard event["type"] == .string("signal_lost"), event["reason"]?["cause"] == .string("session_stopped") else { return [] }
        step = .idle(until: now + Self.retryAfter)
        return [.log("\(label) \(name): the gateway ended the session; asking again in \(Int(Self.retryAfter)) s")]
    }

    /// `phone_session`: an iPhone asks for the accessory configuration data, an Android phone
    /// for its session, with its side of the parameters.
    private mutating func askForSession(at now: Double) -> [Output] {
        let id = nextID()
        step = .askedSession(id: id, since: now)
        var body = [JSONMember("id", .string(id)), JSONMember("name", .string(name))]
        switch kind {
        case .iPhone:
            body.append(JSONMember("platform", .string("ios")))
        case let .android(own):
            body += [JSONMember("phone_role", .string(own.role.rawValue)), JSONMember("config_id", .int(Int64(own.configID))),
                     JSONMember("phone_address", .string(own.address.description)),
                     JSONMember("update_rate", .string(own.updateRate.rawValue))]
            if own.role == .controller {
                body.append(JSONMember("complex_channel", .object([JSONMember("channel", .int(Int64(own.channel))),
                                                                   JSONMember("preamble_index", .int(Int64(own.preambleIndex)))])))
            }
        }
        return [.publish(request: Self.sessionRequest, body: JSONValue.object(body).json)]
    }

    private mutating func refused(_ answer: [String: JSONValue], at now: Double) -> [Output] {
        step = .idle(until: now + Self.retryAfter)
        // Anyone on the broker may answer: the text is escaped and cut, so it cannot forge log lines.
        let error = if case let .string(text)? = answer["error"] { Excerpt.of(text, limit: 200) } else { "no data" }
        return [.log("\(label) \(name): refused (\(error)); asking again in \(Int(Self.retryAfter)) s")]
    }

    private var label: String {
        if case .iPhone = kind { "iPhone app" } else { "Android app" }
    }

    private mutating func nextID() -> String {
        requests += 1
        return "\(name)-\(requests)"
    }
}
