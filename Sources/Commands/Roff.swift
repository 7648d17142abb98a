/// Text for the man(7) macros of roff, what the manual pages are written in: escaped so that
/// groff prints it as written, warns about nothing, and a command copied from the page works.
enum Roff {
    /// Prose (a help text, a discussion, a schema description). A `code` span is set in bold and
    /// escaped as `literal` text. The hyphens of a word that starts with one (`--config`,
    /// `(--site`) are minus signs, `\-`, so that an option copied from the page is ASCII; the
    /// other hyphens (`Ctrl-C`, `store-and-forward`) stay hyphens.
    static func text(_ text: String) -> String {
        let spans = text.split(separator: "`", omittingEmptySubsequences: false)
        // An unpaired backtick is only a character.
        guard spans.count > 1, spans.count % 2 == 1 else { return escape(text, literal: false) }
        return spans.enumerated().map { index, span in
            index % 2 == 0 ? escape(String(span), literal: false) : bold(literal(String(span)))
        }.joined()
    }

    /// Literal text, such as a command to type: every hyphen a minus sign, quotes and backticks
    /// ASCII.
    static func literal(_ text: String) -> String {
        escape(text, literal: true)
    }

    /// `\fBtext\fR`: escaped `text` in bold.
    static func bold(_ escaped: String) -> String { "\\fB" + escaped + "\\fR" }

    /// `\fItext\fR`: escaped `text` in italics (a placeholder, a file name).
    static func italic(_ escaped: String) -> String { "\\fI" + escaped + "\\fR" }

    /// An escaped text line that roff never takes for a request: `\&` before a leading `.` or `'`.
    static func line(_ escaped: String) -> String {
        escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }

    /// A macro argument in double quotes (`.SS "uwb2mqtt check"`); a quote inside is `\(dq`.
    static func argument(_ escaped: String) -> String {
        "\"" + escaped.replacing("\"", with: "\\(dq") + "\""
    }

    /// Backslashes as `\e`, characters beyond ASCII as `\[uXXXX]` (the page is ASCII, whatever the
    /// locale `man` runs in), hyphens as described for `text` and `literal`.
    private static func escape(_ text: String, literal: Bool) -> String {
        var escaped = ""
        // In a word that starts with a hyphen (an option): its hyphens are minus signs.
        var inOption = false
        var previous: Character?
        for character in text {
            if character.isWhitespace { inOption = false }
            switch character {
            case "\\":
                escaped += "\\e"
            case "-":
                if !literal, !inOption, let previous, previous.isLetter || previous.isNumber {
                    escaped += "-"
                } else {
                    inOption = true
                    escaped += "\\-"
                }
            case "'" where literal:
                escaped += "\\(aq"
            case "`" where literal:
                escaped += "\\(ga"
            default:
                for scalar in character.unicodeScalars {
                    if scalar.isASCII {
                        escaped.unicodeScalars.append(scalar)
                    } else {
                        let hex = String(scalar.value, radix: 16, uppercase: true)
                        escaped += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
                    }
                }
            }
            previous = character
        }
        return escaped
    }
}
