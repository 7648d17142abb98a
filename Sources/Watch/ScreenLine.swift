import Vocabulary

/// One line of the drawn view as runs of text with a style each, so that it can be cut to the
/// terminal's width on the visible text and coloured afterwards: an escape sequence cut in half
/// would garble the rest of the screen.
struct ScreenLine {
    /// ANSI SGR parameters, e.g. `"1"` bold, `"31"` red.
    enum Style: String {
        case plain = "", bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36"
    }

    private(set) var runs: [(text: String, style: Style)] = []

    /// Names from the network are drawn with what could move the cursor or clear the screen
    /// escaped (`Excerpt.printable`).
    init(_ text: String = "", _ style: Style = .plain) {
        if !text.isEmpty { runs.append((Excerpt.printable(text), style)) }
    }

    mutating func add(_ text: String, _ style: Style = .plain) {
        if !text.isEmpty { runs.append((Excerpt.printable(text), style)) }
    }

    static func + (line: ScreenLine, text: String) -> ScreenLine {
        var line = line
        line.add(text)
        return line
    }

    static func + (line: ScreenLine, more: ScreenLine) -> ScreenLine {
        var line = line
        line.runs += more.runs
        return line
    }

    /// Columns on the terminal (peer and zone names may hold wide characters).
    var count: Int { runs.reduce(0) { $0 + DisplayWidth.columns($1.text) } }

    /// At most `width` columns, the last one `…` when something was cut; SGR around the
    /// styled runs when `color`.
    func rendered(width: Int, color: Bool) -> String {
        guard width > 0 else { return "" }
        let cut = count > width
        var room = cut ? width - 1 : width
        var text = ""
        for run in runs where room > 0 {
            let piece = DisplayWidth.prefix(run.text, columns: room)
            // A wide character that did not fit leaves the rest of the room unused: stop there.
            room = piece.unicodeScalars.count == run.text.unicodeScalars.count ? room - DisplayWidth.columns(piece) : 0
            text += color && run.style != .plain && !piece.isEmpty ? "\u{1B}[\(run.style.rawValue)m" + piece + "\u{1B}[0m" : piece
        }
        return cut ? text + "…" : text
    }
}
