@testable import Service
import Testing
import Vocabulary

/// Every log line is one entry whatever it quotes: a phone's name, a rule's name or a peer
/// pattern from a request can hold a newline and terminal escapes, and a line such as
/// `error: device /dev/dwm3001c: permission denied` forged inside one must not read as the
/// agent's own.
@Suite struct LogEntryTests {
    @Test func aNewlineInAQuotedNameIndentsUnderTheEntryAndEscapesAreShown() {
        let name = "z\nerror: device /dev/dwm3001c: permission denied\u{1b}[31m\r\u{202E}"
        let entry = Logger.entry("phone \(name) (77:01) ranges in session 1", level: .info)
        #expect(entry == "phone z\ninfo:   error: device /dev/dwm3001c: permission denied\\u{1b}[31m\\u{d}\\u{202e} (77:01) ranges in session 1")
        #expect(!entry.split(separator: "\n").dropFirst().contains { $0.hasPrefix("error:") })
    }

    @Test func plainTextAndTabsAreWrittenAsTheyAre() {
        let text = "rules: 3 zones, \"lobby\"\tok — ünïcode"
        #expect(Logger.entry(text, level: .warning) == text)
    }
}
