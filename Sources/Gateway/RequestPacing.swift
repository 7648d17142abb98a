import Vocabulary
import DeviceLink

/// How often the requests that cost more than an answer may come: the ones that reach the device
/// (a SESSION_INIT, a reset, a start or stop on the serial link) and `reload_rules` (which
/// publishes and journals the retained `rules`). Each name has a bucket of `burst` requests,
/// refilled at one a second; a valid request that finds it empty is answered `ok: false` at once
/// with when to try again, counted in `requests_dropped` and logged once per name per 10 s with
/// the count of the others, so that a flood costs neither the serial link nor the log.
struct RequestPacing {
    struct Pace: Equatable {
        /// Requests accepted back to back before the rate applies.
        let burst: Double
        let perSecond: Double
    }

    /// Nil for requests that are only answered (`ping`, `state`), which the intake's limits bound.
    static func pace(of name: Request.Name) -> Pace? {
        switch name {
        case .ping, .state: nil
        // A few people walking up together each start a session.
        case .phoneSession, .phoneSessionStart: Pace(burst: 4, perSecond: 1)
        case .reloadRules, .rulesSet, .sessionStart, .sessionStop, .deviceReset, .phoneSessionStop: Pace(burst: 1, perSecond: 1)
        // Its answer is the whole rules file: a flood of them would be a flood of 60 KiB answers.
        case .rulesGet: Pace(burst: 2, perSecond: 1)
        }
    }

    private struct Bucket {
        var tokens: Double
        var updatedAt: Double
        var refusals = LogThrottle()
    }

    private var buckets: [Request.Name: Bucket] = [:]

    /// A request refused for its rate: the answer's text and the log lines (none while this
    /// name's 10 s window is open).
    struct Refusal {
        let answer: String
        let logs: [String]
    }

    /// Takes one request of `name` at `monotonic` seconds, or refuses it.
    mutating func admit(_ name: Request.Name, at monotonic: Double) -> Refusal? {
        guard let pace = Self.pace(of: name) else { return nil }
        var bucket = buckets[name] ?? Bucket(tokens: pace.burst, updatedAt: monotonic)
        defer { buckets[name] = bucket }
        bucket.tokens = min(pace.burst, bucket.tokens + max(0, monotonic - bucket.updatedAt) * pace.perSecond)
        bucket.updatedAt = monotonic
        guard bucket.tokens < 1 else {
            bucket.tokens -= 1
            return nil
        }
        let wait = (1 - bucket.tokens) / pace.perSecond
        let rate = pace.burst > 1 ? "\(Int(pace.burst)) at once and then one a second" : "one a second"
        let answer = "too many \(name.rawValue) requests: at most \(rate); try again in \(Self.tenths(wait)) s"
        return Refusal(answer: answer, logs: bucket.refusals.lines(for: "refused a \(name.rawValue) request: at most \(rate)", at: monotonic))
    }

    private static func tenths(_ seconds: Double) -> String {
        let tenths = Int((max(seconds, 0.1) * 10).rounded(.up))
        return "\(tenths / 10).\(tenths % 10)"
    }
}
