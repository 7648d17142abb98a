/// The delay before the client's next connection attempt after a lost or failed one
/// (refused, DNS, TLS, credentials): min, 2·min, 4·min … capped at max — the back-off that
/// cli-and-config.md asks for (1 s, 2 s, 4 s … 60 s). It starts again at min after a CONNACK.
enum ReconnectBackoff {
    /// Seconds to wait before retry number `attempt` (0-based).
    static func delaySeconds(attempt: Int, min: Int, max: Int) -> Int {
        guard attempt < 32 else { return max }
        let doubled = min.multipliedReportingOverflow(by: 1 << attempt)
        return doubled.overflow ? max : Swift.min(doubled.partialValue, max)
    }
}
