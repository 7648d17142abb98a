/// The character cells of the map: each a string of one column, or empty behind a wide
/// character, which takes its cell and the next, with its style; `taken` cells hold a symbol or
/// a label, which later drawing leaves alone.
struct SiteMapCanvas {
    var cells: [[String]]
    var styles: [[ScreenLine.Style]]
    var taken: [[Bool]]
    let height: Int, columns: Int

    init(lines: Int, columns: Int) {
        self.height = lines
        self.columns = columns
        cells = Array(repeating: Array(repeating: " ", count: columns), count: lines)
        taken = Array(repeating: Array(repeating: false, count: columns), count: lines)
        styles = Array(repeating: Array(repeating: .plain, count: columns), count: lines)
    }

    /// Each row as runs of one style.
    var lines: [ScreenLine] {
        zip(cells, styles).map { row, style in
            var line = ScreenLine()
            var run = "", runStyle = ScreenLine.Style.plain
            for (cell, cellStyle) in zip(row, style) {
                if cellStyle != runStyle, !run.isEmpty {
                    line.add(run, runStyle)
                    run = ""
                }
                runStyle = cellStyle
                run += cell
            }
            line.add(run, runStyle)
            return line
        }
    }

    func inside(_ at: (row: Int, column: Int)) -> Bool { (0..<height).contains(at.row) && (0..<columns).contains(at.column) }

    mutating func dot(_ at: (row: Int, column: Int), _ text: String = "·", _ style: ScreenLine.Style = .yellow) {
        guard inside(at), !taken[at.row][at.column] else { return }
        cells[at.row][at.column] = text
        styles[at.row][at.column] = style
    }

    mutating func symbol(_ text: String, at: (row: Int, column: Int), _ style: ScreenLine.Style) {
        guard inside(at) else { return }
        cells[at.row][at.column] = text
        styles[at.row][at.column] = style
        taken[at.row][at.column] = true
    }

    /// After the symbol at `at` when the whole label fits on the right, else ending just before it.
    mutating func label(_ text: String, beside at: (row: Int, column: Int), _ style: ScreenLine.Style) {
        let width = DisplayWidth.columns(text)
        if at.column + 1 + width <= columns || at.column - width < 0 {
            label(text, at: (at.row, at.column + 1), style)
        } else {
            label(text, at: (at.row, at.column - width), style)
        }
    }

    /// Writes `text` from `at` until it ends, meets a taken cell (or with `blankOnly` any
    /// non-blank one), or the frame.
    mutating func label(_ text: String, at: (row: Int, column: Int), _ style: ScreenLine.Style, blankOnly: Bool = false) {
        guard (0..<height).contains(at.row) else { return }
        var column = at.column
        for character in text {
            let width = DisplayWidth.columns(character)
            guard width > 0 else { continue }
            let span = column..<(column + width)
            guard column >= 0, span.upperBound <= columns,
                  span.allSatisfy({ !taken[at.row][$0] && (!blankOnly || cells[at.row][$0] == " ") }) else { return }
            cells[at.row][column] = String(character)
            if width == 2 { cells[at.row][column + 1] = "" }
            for c in span {
                taken[at.row][c] = true
                styles[at.row][c] = style
            }
            column += width
        }
    }
}
