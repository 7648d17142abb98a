import Vocabulary
import DeviceLink
import Testing

@Suite struct LogThrottleTests {
    @Test func aFloodIsOneLinePerWindowAndACount() {
        var throttle = LogThrottle(window: 10)
        var written: [String] = []
        // 1,000 lines a second for 25 s.
        for step in 0..<25_000 {
            written += throttle.lines(for: "malformed packet \(step)", at: Double(step) / 1000)
        }
        if let rest = throttle.flush(at: 25) { written.append(rest) }
        #expect(written == [
            "malformed packet 0",
            "… 9999 more like it in the last 10 s", "malformed packet 10000",
            "… 9999 more like it in the last 10 s", "malformed packet 20000",
            "… 4999 more like it in the last 5 s",
        ])
    }

    @Test func rareLinesAreAllWritten() {
        var throttle = LogThrottle(window: 10)
        let written = (0..<5).flatMap { throttle.lines(for: "line \($0)", at: Double($0) * 11) }
        #expect(written == (0..<5).map { "line \($0)" })
        #expect(throttle.flush(at: 100) == nil)
    }
}

@Suite struct RepeatedReasonTests {
    @Test func aReasonIsNewsOncePerChangeAndAfterAClear() {
        var reason = RepeatedReason()
        let news = ["down", "down", "refused", "refused"].map { reason.isNew($0) }
        #expect(news == [true, false, true, false])
        reason.clear()
        let again = reason.isNew("refused")
        #expect(again)
    }
}
