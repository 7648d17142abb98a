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

extension WallClock {
    /// `2026-11-29T18:30:00.123Z` → seconds since 1970; nil for anything else (an offset other
    /// than `Z` included: the agent writes UTC).
    static func seconds(ts: String) -> Double? {
        let c = Array(ts.utf8)
        guard c.count >= 20, c[4] == UInt8(ascii: "-"), c[7] == UInt8(ascii: "-"), c[10] == UInt8(ascii: "T"), c.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in c[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
              let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month) else { return nil }
        var fraction = 0.0
        // The fraction's digits are only checked, never summed: a `ts` of a thousand digits is text, not an overflow.
        if c[19] == UInt8(ascii: "."), c.count > 21, c[20..<(c.count - 1)].allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            fraction = Double("0" + String(decoding: c[19..<(c.count - 1)], as: UTF8.self)) ?? 0
        }
        // Days from the civil date (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
    }
}
