/// A log line that can come once per packet or per message, written at most once per `window`:
/// the first of each window is written, the rest are counted, and the count is written before
/// the next line after the window (`… 1234 more like it in the last 10 s`). A flood of hostile
/// bytes or requests then costs a line or two per window instead of one per packet, and nothing
/// goes unmentioned.
public struct LogThrottle: Sendable {
    public let window: Double
    private var windowStart = -Double.infinity
    private var suppressed = 0

    public init(window: Double = 10) {
        self.window = window
    }

    /// The lines to write for `line` at `time` (seconds, any monotonic clock): none while the
    /// window of an earlier line is open.
    public mutating func lines(for line: String, at time: Double) -> [String] {
        guard time - windowStart >= window else {
            suppressed += 1
            return []
        }
        var out: [String] = []
        if let summary = summary(at: time) { out.append(summary) }
        windowStart = time
        out.append(line)
        return out
    }

    /// The count not written yet, if any (for a shutdown); the window stays as it is.
    public mutating func flush(at time: Double) -> String? {
        summary(at: time)
    }

    private mutating func summary(at time: Double) -> String? {
        guard suppressed > 0 else { return nil }
        defer { suppressed = 0 }
        let seconds = Int((time - windowStart).rounded())
        return "… \(suppressed) more like it in the last \(seconds) s"
    }
}
