import Vocabulary
import Testing
import Gateway

/// Every payload's `ts` (mqtt-api.md): RFC 3339 UTC with milliseconds.
@Suite struct TimestampTests {
    /// An independent reference: the calendar counted out year by year and month by month
    /// (proleptic Gregorian), rather than the closed-form day arithmetic `Timestamp` uses.
    static func reference(_ secondsSinceEpoch: Double) -> String {
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }
        let totalMilliseconds = Int64((secondsSinceEpoch * 1000).isFinite ? (secondsSinceEpoch * 1000) : 0)
        let milliseconds = Int(((totalMilliseconds % 1000) + 1000) % 1000)
        let seconds = (totalMilliseconds - Int64(milliseconds)) / 1000
        var days = Int(seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400))
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        var year = 1970
        while days < 0 {
            year -= 1
            days += isLeap(year) ? 366 : 365
        }
        while days >= (isLeap(year) ? 366 : 365) {
            days -= isLeap(year) ? 366 : 365
            year += 1
        }
        var month = 1
        for length in [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] {
            if days < length { break }
            days -= length
            month += 1
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(days + 1, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(milliseconds, 3))Z"
    }

    @Test func knownInstants() {
        #expect(Timestamp.rfc3339(0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(1_795_977_000.123) == "2026-11-29T18:30:00.123Z")
        #expect(Timestamp.rfc3339(951_782_400) == "2000-02-29T00:00:00.000Z")
        #expect(Timestamp.rfc3339(-0.001) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.rfc3339(253_402_300_799.999) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.rfc3339(.nan) == "1970-01-01T00:00:00.000Z")
        // Far out of range: a clamped date, not a trap.
        #expect(Timestamp.rfc3339(1e300) == Timestamp.rfc3339(8.64e12))
        #expect(Timestamp.rfc3339(-1e300) == Timestamp.rfc3339(-8.64e12))
    }

    @Test func matchesACountedCalendarAndParsesBack() {
        var instants: [Double] = [-62_167_219_200, -62_167_219_200.001, 253_402_300_800, 1e12, -1e11, 1_700_000_000.9995]
        var state: UInt64 = 42
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            instants.append(Double(Int64(bitPattern: state >> 24) % 4_000_000_000_000) / 1000)
        }
        for t in instants {
            let text = Timestamp.rfc3339(t)
            #expect(text == Self.reference(t), "\(t)")
            if !text.hasPrefix("-"), text.count == 24, let back = Timestamp.parse(text) {
                #expect(abs(back - (t * 1000).rounded(.down) / 1000) < 0.002, "\(t) \(text)")
            }
        }
    }
}
