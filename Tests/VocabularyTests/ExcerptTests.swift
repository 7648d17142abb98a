import Testing
import Vocabulary

/// What a message may quote of a file: at most 20 characters, escaped, `…` when cut.
@Suite struct ExcerptTests {
    @Test func aShortValueIsQuotedWhole() {
        #expect(Excerpt.quoted("kalmn") == "\"kalmn\"")
        #expect(Excerpt.quoted("") == "\"\"")
        #expect(Excerpt.quoted(String(repeating: "x", count: 20)) == "\"" + String(repeating: "x", count: 20) + "\"")
    }

    @Test func aLongValueIsCutAfterTwentyCharacters() {
        let line = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
        #expect(Excerpt.quoted(line) == "\"b3BlbnNzaC1rZXktdjEA…\"")
        #expect(Excerpt.of(line) == "b3BlbnNzaC1rZXktdjEA…")
        // Counted in Unicode scalars, so that combining marks cannot stretch it.
        #expect(Excerpt.of(String(repeating: "e\u{301}", count: 30)).unicodeScalars.count == 21)
    }

    /// Nothing quoted can end the quotes, start a line of its own, ring, move the cursor or
    /// reorder what a terminal shows.
    @Test func controlCharactersAreEscaped() {
        #expect(Excerpt.quoted("a\"b\\c") == #""a\"b\\c""#)
        #expect(Excerpt.quoted("a\nb\rc\td") == #""a\nb\rc\td""#)
        #expect(Excerpt.quoted("\u{7}\u{1B}[2J\u{7F}\u{85}") == #""\u{7}\u{1b}[2J\u{7f}\u{85}""#)
        #expect(Excerpt.quoted("abc\u{202E}fed\u{2066}") == #""abc\u{202e}fed\u{2066}""#)
        #expect(Excerpt.quotedWhole(String(repeating: "k", count: 30) + "\n") == "\"" + String(repeating: "k", count: 30) + "\\n\"")
    }
}
