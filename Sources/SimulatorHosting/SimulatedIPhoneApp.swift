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
        case log(String)
    }

    private enum Step {
        case idle(until: Double)
        case askedAccessory(id: String, since: Double)
        case askedStart(id: String, since: Double)
        case ranging
    }

    let name: String
    let address: UWBAddress
    private var step: Step
    private var random: SplitMix64
    private var requests = 0

    /// An answer that does not come within this long is asked for again.
    static let answerTimeout = 20.0
    /// After a refusal or the end of a session.
    static let retryAfter = 3.0

    init(app: ScenarioIPhone.App, address: UWBAddress, startingAt start: Double, seed: UInt64) {
        name = app.name
        self.address = address
        step = .idle(until: start + app.startAt)
        random = SplitMix64(seed: seed)
    }

    var nextDeadline: Double? {
        switch step {
        case let .idle(until): until
        case let .askedAccessory(_, since), let .askedStart(_, since): since + Self.answerTimeout
        case .ranging: nil
        }
    }

    mutating func timePassed(_ now: Double) -> [Output] {
        guard let deadline = nextDeadline, now >= deadline else { return [] }
        return askForAccessory(at: now)
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
            step = .ranging
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
