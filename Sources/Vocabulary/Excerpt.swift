/// What an error message may quote of a file: a short excerpt of a value, in double quotes,
/// with every character that could hide or fake text escaped (`expected a number, found "abc"`).
///
/// Messages about a config or rules file go to the `rules` topic (retained, for every
/// subscriber), the log and request answers. A path pointed at the wrong file — a private key, a
/// password file — must not put that file's content there: a quoted value is cut after
/// ``maximumCharacters`` and marked `…`, which is enough to recognise a typo and never a line of
/// a key. (What the top level of a file is, when it is not a mapping, is not quoted at all; see
/// YAMLCoding's wording.)
public enum Excerpt {
    /// Unicode scalars of the value shown before the `…`.
    public static let maximumCharacters = 20

    /// `text` quoted, escaped and cut: `"counter, checkout, e…"` for a longer value.
    public static func quoted(_ text: some StringProtocol) -> String {
        "\"" + of(text) + "\""
    }

    /// `text` escaped and cut after `limit` scalars, without quotes: for a name whose syntax
    /// marks it already (an alias, `*name`), or a name from the network in a log line (a newline
    /// in it would forge a line of its own).
    public static func of(_ text: some StringProtocol, limit: Int = maximumCharacters) -> String {
        var out = ""
        var count = 0
        for c in text.unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            count += 1
            append(c, to: &out)
        }
        return out
    }

    /// `text` quoted and escaped, not cut: for names the program defines (a missing key), never
    /// for what a file holds.
    public static func quotedWhole(_ text: some StringProtocol) -> String {
        var out = "\""
        for c in text.unicodeScalars { append(c, to: &out) }
        return out + "\""
    }

    /// `text` as a terminal or a log may show it, not cut and not quoted: every character that
    /// could hide or fake text (``hidesText(_:)``) as `\u{…}`, tabs as they are. For lines made
    /// of names from the network (`watch`'s views, log entries), where an escape sequence could
    /// clear the screen and a carriage return or a newline forge a line.
    public static func printable(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: { $0 != "\t" && hidesText($0) }) else { return String(text) }
        var out = ""
        for c in text.unicodeScalars {
            if c != "\t" && hidesText(c) { out += "\\u{\(String(c.value, radix: 16))}" } else { out.unicodeScalars.append(c) }
        }
        return out
    }

    /// Control characters (C0, DEL, C1) and the bidirectional overrides that reorder what a
    /// terminal shows.
    public static func hidesText(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        return v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    /// One character as a message shows it: quotes and backslashes escaped, and what
    /// ``hidesText(_:)`` as `\u{…}`.
    private static func append(_ c: Unicode.Scalar, to out: inout String) {
        switch c {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if hidesText(c) {
                out += "\\u{\(String(c.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(c)
            }
        }
    }
}
