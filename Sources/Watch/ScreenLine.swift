/// One line of the drawn view as runs of text with a style each, so that it can be cut to the
/// terminal's width on the visible text and coloured afterwards: an escape sequence cut in half
/// would garble the rest of the screen.
struct ScreenLine {
    /// ANSI SGR parameters, e.g. `"1"` bold, `"31"` red.
    enum Style: String {
        case plain = "", bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36"
    }

    private(set) var runs: [(text: String, style: Style)] = []

    init(_ text: String = "", _ style: Style = .plain) {
        if !text.isEmpty { runs.append((text, style)) }
    }

    mutating func add(_ text: String, _ style: Style = .plain) {
        if !text.isEmpty { runs.append((text, style)) }
    }

    static func + (line: ScreenLine, text: String) -> ScreenLine {
        var line = line
        line.add(text)
        return line
    }

    var count: Int { runs.reduce(0) { $0 + $1.text.count } }

    /// At most `width` characters, the last one `…` when something was cut; SGR around the
    /// styled runs when `color`. Every character is taken as one column (the view uses no wide ones).
    func rendered(width: Int, color: Bool) -> String {
        guard width > 0 else { return "" }
        let cut = count > width
        var room = cut ? width - 1 : width
        var text = ""
        for run in runs where room > 0 {
            let piece = run.text.count > room ? String(run.text.prefix(room)) : run.text
            room -= piece.count
            text += color && run.style != .plain ? "\u{1B}[\(run.style.rawValue)m" + piece + "\u{1B}[0m" : piece
        }
        return cut ? text + "…" : text
    }
}
