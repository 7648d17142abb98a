/// One `event` payload as `watch` lists it, with its reason in words.
public struct WatchEvent: Sendable, Equatable {
    public var gateway: String
    public var peer: String
    /// `HH:MM:SS` of the event's `ts` (UTC).
    public var clock: String
    public var type: String
    public var rule: String?
    public var from: String?
    public var to: String?
    public var distance: Double?
    public var threshold: Double?
    public var dwellMs: Int?
    public var cause: String?
    /// `HH:MM:SS` of `reason.last_seen`.
    public var lastSeen: String?

    /// `zone_enter counter at 0.81 m after 300 ms dwell (threshold 1.0 m)`,
    /// `stage_change approach → reach at 0.91 m`, `signal_lost: measurement errors, last seen 12:03:01`.
    public var words: String {
        var text = type
        if let rule { text += " " + rule }
        // A stage's or approach's from/to names what changed; the others' only repeat the type.
        // A peer's first stage comes from none, and a lost peer's stage goes to none.
        if type == "stage_change" || type.hasPrefix("approach_"), from != nil || to != nil {
            text += " \(from ?? "none") → \(to ?? "none")"
        }
        if let distance { text += " at \(Metres.text(distance)) m" }
        if let dwellMs, dwellMs > 0 { text += " after \(dwellMs) ms dwell" }
        if let threshold { text += " (threshold \(threshold) m)" }
        if let cause {
            text += ": " + cause.replacingUnderscores
            if let lastSeen { text += ", last seen \(lastSeen)" }
        }
        return text
    }
}

extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}
