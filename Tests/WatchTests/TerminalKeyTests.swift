import Testing
import Watch

/// The bytes a terminal sends for the keys `watch` acts on.
@Suite struct TerminalKeyTests {
    func keys(_ text: String) -> [TerminalKey] { TerminalKey.parse(Array(text.utf8)).keys }

    @Test func lettersArrowsAndPages() {
        #expect(keys("q") == [.quit])
        #expect(keys("Q") == [.quit])
        #expect(keys("\u{1B}[A\u{1B}[B") == [.up, .down])
        // Application cursor mode sends SS3 instead of CSI.
        #expect(keys("\u{1B}OA\u{1B}OB") == [.up, .down])
        #expect(keys("\u{1B}[5~\u{1B}[6~ ") == [.pageUp, .pageDown, .pageDown])
        #expect(keys("\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~") == [.home, .end, .home, .end])
        #expect(keys("kj") == [.up, .down])
    }

    @Test func otherKeysDoNothing() {
        #expect(keys("x\r\n\u{1B}[C\u{1B}[2~") == [])
        // Ctrl-Up is still up.
        #expect(keys("\u{1B}[1;5A") == [.up])
        // A lone Escape, then q.
        #expect(keys("\u{1B}q") == [.quit])
    }

    @Test func aSequenceCutByTheReadIsKeptForTheNext() {
        let first = TerminalKey.parse(Array("q\u{1B}[6".utf8))
        #expect(first.keys == [.quit])
        #expect(first.rest == Array("\u{1B}[6".utf8))
        let second = TerminalKey.parse(first.rest + Array("~".utf8))
        #expect(second.keys == [.pageDown] && second.rest.isEmpty)
        #expect(TerminalKey.parse([0x1B]).rest == [0x1B])
    }
}
