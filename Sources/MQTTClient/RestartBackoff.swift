/// The delay before the client restarts libmosquitto's network loop after an error that ended it
/// (bad credentials on MQTT 5, TLS, DNS): min, 2·min, 4·min … capped at max — the back-off that
/// cli-and-config.md asks for (1 s, 2 s, 4 s … 60 s). Retries after a plain connection loss are
/// libmosquitto's own (`min·n²`, see `MQTTConfiguration.reconnectDelayMinSeconds`).
enum RestartBackoff {
    /// Seconds to wait before restart number `attempt` (0-based).
    static func delaySeconds(attempt: Int, min: Int, max: Int) -> Int {
        guard attempt < 32 else { return max }
        let doubled = min.multipliedReportingOverflow(by: 1 << attempt)
        return doubled.overflow ? max : Swift.min(doubled.partialValue, max)
    }
}
