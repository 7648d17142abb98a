import Testing
import Vocabulary

/// One grammar of durations for the config, rules and fuse files.
@Suite struct TimeSpanTests {
    @Test(arguments: [("300ms", 0.3), ("2s", 2), ("1.5min", 90), ("1m", 60), ("1h", 3600), ("0.5", 0.5), ("300 ms", 0.3),
                      (" 2s ", 2), ("0", 0), ("1e3ms", 1)])
    func accepted(text: String, seconds: Double) throws {
        #expect(try TimeSpan.parse(text).get().seconds == seconds)
    }

    @Test(arguments: ["soon", "3 hours", "1 0s", "ms", "", "0x10s", "1d", "inf", "nan s", "2 s s"])
    func refused(text: String) {
        #expect(TimeSpan.parse(text) == .failure(.notADuration(text)))
        #expect(TimeSpan.Problem.notADuration(text).description
                == "expected a duration such as 300ms, 2s, 1min, 1h or a number of seconds, found \"\(text)\"")
    }

    @Test func negativeDurationsAreRefusedWithTheirOwnWords() {
        #expect(TimeSpan.parse("-1s") == .failure(.negative("-1s")))
        #expect(TimeSpan.Problem.negative("-1").description == "a duration cannot be negative, found \"-1\"")
    }

    @Test func printsAsAFileWouldWriteIt() {
        #expect(TimeSpan(seconds: 0.3).description == "300ms")
        #expect(TimeSpan(seconds: 2).description == "2s")
        #expect(TimeSpan(seconds: 1e300).milliseconds == Int.max)
    }
}
