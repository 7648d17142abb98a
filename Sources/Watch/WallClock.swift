/// `HH:MM:SS` (UTC), the time column of `watch`: from a payload's RFC 3339 `ts`, or from the
/// arrival time of a message that has none (the last will).
enum WallClock {
    /// `2026-11-29T18:30:00.123Z` → `18:30:00`; nil for anything not shaped like a v1 `ts`.
    static func clock(ts: String) -> String? {
        let characters = Array(ts)
        guard characters.count >= 19, characters[10] == "T", characters[13] == ":", characters[16] == ":" else { return nil }
        return String(characters[11..<19])
    }

    /// Seconds since 1970 → `HH:MM:SS`.
    static func clock(secondsSince1970 seconds: Double) -> String {
        let ofDay = ((Int(seconds.rounded(.down)) % 86_400) + 86_400) % 86_400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(ofDay / 3600)):\(two(ofDay / 60 % 60)):\(two(ofDay % 60))"
    }
}
