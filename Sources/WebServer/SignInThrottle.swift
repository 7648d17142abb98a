/// Wrong passwords, counted per client address: past `allowedFailures` within `window` seconds,
/// an address is answered 429 without its password being looked at until the window has passed,
/// so that guessing goes at a few passwords a minute rather than thousands a second, while a
/// browser elsewhere signs in as before.
///
/// Bounded: at most `maximumAddresses` are remembered; a new one beyond that takes the place of
/// the one whose window began longest ago.
struct SignInThrottle {
    static let allowedFailures = 10
    static let window = 60.0
    static let maximumAddresses = 1_024

    private struct Failures {
        var count: Int
        var since: Double
    }

    private var failures: [String: Failures] = [:]

    /// Whether `address` has had its wrong passwords for now (monotonic seconds).
    mutating func refuses(_ address: String, at time: Double) -> Bool {
        guard let entry = failures[address] else { return false }
        if time - entry.since >= Self.window {
            failures[address] = nil
            return false
        }
        return entry.count >= Self.allowedFailures
    }

    /// A wrong password (or none) from `address` at `time`.
    mutating func failed(_ address: String, at time: Double) {
        if var entry = failures[address], time - entry.since < Self.window {
            entry.count += 1
            failures[address] = entry
            return
        }
        if failures[address] == nil, failures.count >= Self.maximumAddresses,
           let oldest = failures.min(by: { $0.value.since < $1.value.since })?.key {
            failures[oldest] = nil
        }
        failures[address] = Failures(count: 1, since: time)
    }

    var addressCount: Int { failures.count }
}
