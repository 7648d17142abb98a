import Testing
import Watch

/// Columns as a terminal counts them, so that a line cut at the width ends at the edge.
@Suite struct DisplayWidthTests {
    @Test func asciiAndAccentsAreOneColumnACharacter() {
        #expect(DisplayWidth.columns("phone-anna") == 10)
        // é precomposed, and e followed by a combining acute: both one column.
        #expect(DisplayWidth.columns("caf\u{E9}") == 4)
        #expect(DisplayWidth.columns("cafe\u{301}") == 4)
        #expect(DisplayWidth.columns("█▏✗…◆●·") == 7)
    }

    @Test func eastAsianWideAndEmojiAreTwo() {
        #expect(DisplayWidth.columns("受付") == 4)
        #expect(DisplayWidth.columns("카트") == 4)
        #expect(DisplayWidth.columns("ＡＢ") == 4)
        #expect(DisplayWidth.columns("📱anna") == 6)
        // A ZWJ sequence and a flag are one picture each.
        #expect(DisplayWidth.columns("👩‍🔧") == 2)
        #expect(DisplayWidth.columns("🇩🇪") == 2)
        // U+FE0F turns a text symbol into an emoji picture.
        #expect(DisplayWidth.columns("❤️") == 2)
    }

    @Test func marksAndFormatCharactersAloneTakeNone() {
        #expect(DisplayWidth.columns("\u{301}") == 0)
        #expect(DisplayWidth.columns("\u{200B}") == 0)
    }

    @Test func aPrefixNeverSplitsAWideCharacter() {
        #expect(DisplayWidth.prefix("受付カウンター", columns: 5) == "受付")
        #expect(DisplayWidth.prefix("受付カウンター", columns: 6) == "受付カ")
        #expect(DisplayWidth.prefix("cafe\u{301} bar", columns: 4) == "cafe\u{301}")
        #expect(DisplayWidth.prefix("abc", columns: 0) == "")
    }
}
