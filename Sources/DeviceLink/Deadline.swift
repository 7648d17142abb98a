/// A point in time by which a bounded wait must end, and the `poll()` timeout left until then.
///
/// `poll()` takes whole milliseconds; rounding the remainder up (never down to 0 early) keeps a
/// wait from ending before its deadline and so from spinning in a loop of zero-length polls.
struct Deadline {
    let instant: ContinuousClock.Instant

    /// The longest wait honoured; longer ones are cut to it, so that absurd timeouts
    /// (`.seconds(Int64.max)`) cannot overflow clock arithmetic.
    static let longest = Duration.seconds(365 * 86_400)

    init(after duration: Duration) {
        instant = ContinuousClock.now.advanced(by: min(max(duration, .zero), Self.longest))
    }

    /// Milliseconds left for `poll()`, rounded up, 0 once passed, capped at `Int32.max`.
    var pollMilliseconds: Int32 {
        let left = ContinuousClock.now.duration(to: instant)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        guard seconds < Int64(Int32.max / 1000) else { return Int32.max }
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: millis)
    }

    var hasPassed: Bool { ContinuousClock.now >= instant }
}

extension Duration {
    /// "1.5 s", "200 ms": for messages.
    var shortDescription: String {
        let (seconds, attoseconds) = components
        guard seconds < 1_000_000_000 else { return "\(seconds) s" }
        let millis = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if millis % 1000 == 0 { return "\(millis / 1000) s" }
        if millis >= 1000 { return "\(Double(millis) / 1000) s" }
        return "\(millis) ms"
    }
}
