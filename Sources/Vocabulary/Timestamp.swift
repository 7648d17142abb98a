/// RFC 3339 UTC timestamps with milliseconds (`2026-11-29T18:30:00.123Z`), as every payload's
/// `ts` carries them (mqtt-api.md). Pure arithmetic on seconds since the Unix epoch, so that a
/// replay stamps events with recorded times, not the clock's.
public enum Timestamp {
    public static func rfc3339(_ secondsSinceEpoch: Double) -> String {
        // Clamped to ±100,000,000 days (ECMAScript's date range): beyond ±9.2e18 ms the conversion
        // to Int64 would trap, and no clock or recording gets anywhere near either bound.
        let limit = 8.64e15
        let scaled = secondsSinceEpoch * 1000
        let totalMilliseconds = Int64(scaled.isFinite ? min(max(scaled, -limit), limit) : 0)
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let seconds = (totalMilliseconds - Int64(milliseconds)) / 1000
        let days = Int(floorDivide(seconds, 86_400))
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let (year, month, day) = civil(fromDays: days)
        if (0...9999).contains(year) {
            return fixedWidth(year: year, month: month, day: day, secondOfDay: secondOfDay, milliseconds: milliseconds)
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(milliseconds, 3))Z"
    }

    /// The 24 characters of a year 0–9999 written digit by digit into one string: `rfc3339` runs for
    /// every published message, and interpolating seven padded numbers cost more than the rest of a
    /// `range` payload's fields together.
    private static func fixedWidth(year: Int, month: Int, day: Int, secondOfDay: Int, milliseconds: Int) -> String {
        String(unsafeUninitializedCapacity: 24) { buffer in
            var index = 0
            func put(_ value: Int, _ width: Int) {
                var divisor = 1
                for _ in 1..<width { divisor *= 10 }
                while divisor > 0 {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value / divisor % 10)
                    index += 1
                    divisor /= 10
                }
            }
            func mark(_ character: Unicode.Scalar) {
                buffer[index] = UInt8(ascii: character)
                index += 1
            }
            put(year, 4); mark("-"); put(month, 2); mark("-"); put(day, 2); mark("T")
            put(secondOfDay / 3600, 2); mark(":"); put(secondOfDay / 60 % 60, 2); mark(":"); put(secondOfDay % 60, 2)
            mark("."); put(milliseconds, 3); mark("Z")
            return index
        }
    }

    /// Parses `2026-11-29T18:30:00.123Z` (UTC, optional fraction) to seconds since the epoch;
    /// nil for anything else. The inverse of `rfc3339`, for payloads read back (`fuse`).
    public static func parse(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 else { return nil }
                value = value * 10 + Int(bytes[index] - 48)
            }
            return value
        }
        guard let year = number(0..<4), bytes[4] == UInt8(ascii: "-"), let month = number(5..<7), bytes[7] == UInt8(ascii: "-"),
              let day = number(8..<10), bytes[10] == UInt8(ascii: "T"), let hour = number(11..<13), bytes[13] == UInt8(ascii: ":"),
              let minute = number(14..<16), bytes[16] == UInt8(ascii: ":"), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var fraction = 0.0
        if bytes[19] == UInt8(ascii: ".") {
            var scale = 0.1
            var index = 20
            while index < bytes.count - 1 {
                guard bytes[index] >= 48, bytes[index] <= 57 else { return nil }
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
        } else if bytes.count != 20 {
            return nil
        }
        let days = daysFromCivil(year, month, day)
        return Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second) + fraction
    }

    /// Howard Hinnant's days-from-civil algorithm.
    private static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    /// Howard Hinnant's days-to-civil algorithm.
    private static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
