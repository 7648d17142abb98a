/// How many terminal columns text takes: a line cut at the terminal's width by counting
/// characters would overflow with Chinese names or emoji (two columns each) and end early with
/// combining accents (none). Per grapheme cluster, as Swift's `Character` groups them: a base
/// letter with its combining marks is one column, a wide or emoji cluster two, a cluster of
/// only marks or format characters (ZWJ, ZWSP) none. East Asian Width is not in the standard
/// library's Unicode properties, so the wide ranges (UAX #11, W and F) are listed here.
public enum DisplayWidth {
    public static func columns(_ text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + columns($1) }
    }

    public static func columns(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        // U+FE0F asks for the emoji presentation of what precedes it (❤️, ☺️): two columns.
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        return isWide(first) ? 2 : 1
    }

    /// The longest start of `text` that takes at most `columns` columns; a wide character that
    /// would straddle the limit is left out whole.
    public static func prefix(_ text: some StringProtocol, columns limit: Int) -> String {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            let width = columns(text[index])
            guard used + width <= limit else { break }
            used += width
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.isEmojiPresentation { return true }
        let v = scalar.value
        return wideRanges.contains { $0.contains(v) }
    }

    /// East Asian Wide and Fullwidth blocks: Hangul Jamo, CJK radicals to Yi, Hangul syllables,
    /// CJK compatibility, vertical and small forms, fullwidth forms, and the supplementary
    /// ideographic planes.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
        0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19,
        0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]
}
