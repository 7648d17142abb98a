import Simulator
import UCI
import Vocabulary

/// The app of a simulated iPhone, as `run --simulate` plays it for a scenario's `iphone: {app: …}`
/// (`make demo`): the exchange a real iOS app makes with the gateway over MQTT (README, "iPhones
/// as peers"), with the simulated iOS in the middle. Pure: the time, the answers and the peer's
/// events go in; requests to publish and NISessions to run come out. Asks again whenever its
/// session ends, as an app that wants to keep ranging does.
struct SimulatedIPhoneApp {
    /// The requests as the MQTT API names them, as a real app knows them.
    static let sessionRequest = "phone_session"
    static let startRequest = "phone_session_start"

    enum Output: Equatable {
        /// Publish `body` on `request/<request>`.
        case publish(request: String, body: String)
        /// iOS runs this NISession: the simulated iPhone listens from now on.
        case run(IPhoneNearbySession)
        /// Publish what the phone measured of the gateway on `phone/<name>/report` (the shell
        /// dates it): nil angles outside the phone's field of view.
        case report(token: String, azimuthDeg: Double?, elevationDeg: Double?, distanceM: Double?)
        case log(String)
    }

    private enum Step {
        case idle(until: Double)
        case askedAccessory(id: String, since: Double)
        case askedStart(id: String, since: Double)
        /// With the session's report token, the next report due and the interval between them.
        case ranging(token: String?, nextReport: Double, interval: Double)
    }

    let name: String
    let address: UWBAddress
    private let app: ScenarioIPhone.App
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

    init(app: ScenarioIPhone.App, address: UWBAddress, startingAt start: Double, seed: UInt64, track: PeerTrack? = nil,
         sceneTime: @escaping (Double) -> Double = { $0 }) {
        name = app.name
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
        case let .askedAccessory(_, since), let .askedStart(_, since): since + Self.answerTimeout
        case let .ranging(token, nextReport, _): token != nil && !app.pointing.isEmpty ? nextReport : nil
        }
    }

    mutating func timePassed(_ now: Double) -> [Output] {
        guard let deadline = nextDeadline, now >= deadline else { return [] }
        guard case let .ranging(token?, _, interval) = step else { return askForAccessory(at: now) }
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
        case let .askedAccessory(waiting, _) where id == waiting && request == Self.sessionRequest:
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
        case let .askedStart(waiting, _) where id == waiting && request == Self.startRequest:
            guard answer["ok"] == .bool(true) else { return refused(answer, at: now) }
            // A report per ranging round, as NISession updates its objects.
            var interval = 0.2
            if case let .int(milliseconds)? = answer["data"]?["ranging_interval_ms"], (50...5000).contains(milliseconds) {
                interval = Double(milliseconds) / 1000
            }
            let token: String? = if case let .string(text)? = answer["data"]?["report_token"] { text } else { nil }
            step = .ranging(token: token, nextReport: now, interval: interval)
            return [.log("iPhone app \(name): ranging")]
        default:
            return []
        }
    }

    /// The peer's `event`: a session the gateway ended means asking again.
    mutating func event(payload: [UInt8], at now: Double) -> [Output] {
        guard case .ranging = step, case let .object(members)? = try? JSONReader.value(payload) else { return [] }
        let event = Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        guard event["type"] == .string("signal_lost"), event["reason"]?["cause"] == .string("session_stopped") else { return [] }
        step = .idle(until: now + Self.retryAfter)
        return [.log("iPhone app \(name): the gateway ended the session; asking again in \(Int(Self.retryAfter)) s")]
    }

    private mutating func askForAccessory(at now: Double) -> [Output] {
        let id = nextID()
        step = .askedAccessory(id: id, since: now)
        return [.publish(request: Self.sessionRequest, body: JSONValue.object([
            JSONMember("id", .string(id)), JSONMember("name", .string(name)), JSONMember("platform", .string("ios"))]).json)]
    }

    private mutating func refused(_ answer: [String: JSONValue], at now: Double) -> [Output] {
        step = .idle(until: now + Self.retryAfter)
        // Anyone on the broker may answer: the text is escaped and cut, so it cannot forge log lines.
        let error = if case let .string(text)? = answer["error"] { Excerpt.of(text, limit: 200) } else { "no data" }
        return [.log("iPhone app \(name): refused (\(error)); asking again in \(Int(Self.retryAfter)) s")]
    }

    private mutating func nextID() -> String {
        requests += 1
        return "\(name)-\(requests)"
    }
}
