/// The site seen from above, as characters: the zones' outlines dotted (`·`) with their names
/// inside, each gateway a `◆` with its id, each tag a `●` with its name and accuracy
/// (`cart ±4cm`), in a frame titled with the site's name. North (+y) is up.
///
/// Scaled to fit `width` × `height` with the terminal's cells taken as twice as tall as wide, so
/// that a square room looks square; the frame shrinks to what the content needs, and the space
/// beside it is the caller's (the legend). Pure: the same site and size give the same rows.
public struct SiteMap: Sendable, Equatable {
    /// The framed map, each row the same number of columns.
    public let rows: [String]
    /// Metres one column stands for (a row stands for twice as much); 0 when nothing was drawn.
    public let metresPerColumn: Double

    /// The narrowest inside the frame, so that labels have room even on a small site.
    static let minimumInnerWidth = 20

    /// Nothing (no rows) when there is nothing with a place to draw or the size is too small.
    public init(site: SiteView, gateways: [(id: String, position: MapPoint)], width: Int, height: Int) {
        let tags = site.tags.values.filter { $0.position != nil }.sorted { $0.name < $1.name }
        let points = gateways.map(\.position) + site.zones.flatMap(\.polygon) + tags.compactMap(\.position)
        let innerWidth = width - 2, innerHeight = height - 2
        guard let first = points.first, innerWidth >= 3, innerHeight >= 2 else {
            rows = []
            metresPerColumn = 0
            return
        }
        var (minX, maxX, minY, maxY) = (first.x, first.x, first.y, first.y)
        for p in points {
            (minX, maxX, minY, maxY) = (min(minX, p.x), max(maxX, p.x), min(minY, p.y), max(maxY, p.y))
        }
        // A single point or a line still gets a scale: a metre around it.
        let spanX = max(maxX - minX, 1), spanY = max(maxY - minY, 1)
        let scale = max(spanX / Double(innerWidth - 1), spanY / (2 * Double(innerHeight - 1)))
        let columns = min(innerWidth, max(Int((spanX / scale).rounded(.up)) + 1, min(innerWidth, Self.minimumInnerWidth)))
        let lines = min(innerHeight, Int((spanY / (2 * scale)).rounded(.up)) + 1)
        // Centred where the frame is larger than the content.
        let offsetColumn = (Double(columns - 1) - (maxX - minX) / scale) / 2
        let offsetRow = (Double(lines - 1) - (maxY - minY) / (2 * scale)) / 2
        func cell(_ p: MapPoint) -> (row: Int, column: Int) {
            (Int(((maxY - p.y) / (2 * scale) + offsetRow).rounded()), Int(((p.x - minX) / scale + offsetColumn).rounded()))
        }

        var canvas = Canvas(lines: lines, columns: columns)
        for zone in site.zones where !zone.polygon.isEmpty {
            for (a, b) in zip(zone.polygon, zone.polygon.dropFirst() + [zone.polygon[0]]) {
                // Enough samples that no cell between two vertices is skipped.
                let (ca, cb) = (cell(a), cell(b))
                let steps = 2 * max(abs(cb.row - ca.row), abs(cb.column - ca.column), 1)
                for step in 0...steps {
                    let f = Double(step) / Double(steps)
                    canvas.dot(cell(MapPoint(x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f)))
                }
            }
        }
        let gatewayCells = gateways.sorted { $0.id < $1.id }.map { ($0.id, cell($0.position)) }
        let tagCells = tags.map { ($0, cell($0.position!)) }
        for (_, at) in gatewayCells { canvas.symbol("◆", at: at) }
        for (_, at) in tagCells { canvas.symbol("●", at: at) }
        // Tags' labels first: where labels meet, the tag's is the one a person came for.
        for (tag, at) in tagCells { canvas.label(tag.name + (tag.accuracy.map { " ±" + Self.accuracy($0) } ?? ""), beside: at) }
        for (id, at) in gatewayCells { canvas.label(id, beside: at) }
        for zone in site.zones where !zone.polygon.isEmpty {
            // Inside the zone's top-left corner: one row below its top, one column right of its left edge.
            let cells = zone.polygon.map(cell)
            let top = cells.map(\.row).min()!
            let left = cells.filter { $0.row == top }.map(\.column).min()!
            canvas.label(zone.name, at: (top + 1 < lines ? top + 1 : top, left + 1), blankOnly: true)
        }

        let title = DisplayWidth.prefix("─ " + site.name + " ", columns: columns)
        let titleWidth = DisplayWidth.columns(title)
        rows = ["┌" + title + String(repeating: "─", count: columns - titleWidth) + "┐"]
            + canvas.cells.map { "│" + $0.joined() + "│" }
            + ["└" + String(repeating: "─", count: columns) + "┘"]
        metresPerColumn = scale
    }

    /// `4cm` below a metre, else `1.2m`: short enough to sit beside a name on the map.
    static func accuracy(_ metres: Double) -> String {
        guard metres.isFinite else { return "?" }
        if metres < 0.995 { return "\(Int((metres * 100).rounded()))cm" }
        let tenths = Int((metres * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)m"
    }

    public static func == (a: SiteMap, b: SiteMap) -> Bool { a.rows == b.rows && a.metresPerColumn == b.metresPerColumn }
}

/// The character cells of the map: each a string of one column, or empty behind a wide
/// character, which takes its cell and the next; `taken` cells hold a symbol or a label, which
/// later drawing leaves alone.
private struct Canvas {
    var cells: [[String]]
    var taken: [[Bool]]
    let lines: Int, columns: Int

    init(lines: Int, columns: Int) {
        self.lines = lines
        self.columns = columns
        cells = Array(repeating: Array(repeating: " ", count: columns), count: lines)
        taken = Array(repeating: Array(repeating: false, count: columns), count: lines)
    }

    func inside(_ at: (row: Int, column: Int)) -> Bool { (0..<lines).contains(at.row) && (0..<columns).contains(at.column) }

    mutating func dot(_ at: (row: Int, column: Int)) {
        guard inside(at), !taken[at.row][at.column] else { return }
        cells[at.row][at.column] = "·"
    }

    mutating func symbol(_ text: String, at: (row: Int, column: Int)) {
        guard inside(at) else { return }
        cells[at.row][at.column] = text
        taken[at.row][at.column] = true
    }

    /// After the symbol at `at` when the whole label fits on the right, else ending just before it.
    mutating func label(_ text: String, beside at: (row: Int, column: Int)) {
        let width = DisplayWidth.columns(text)
        if at.column + 1 + width <= columns || at.column - width < 0 {
            label(text, at: (at.row, at.column + 1))
        } else {
            label(text, at: (at.row, at.column - width))
        }
    }

    /// Writes `text` from `at` until it ends, meets a taken cell (or with `blankOnly` any
    /// non-blank one), or the frame.
    mutating func label(_ text: String, at: (row: Int, column: Int), blankOnly: Bool = false) {
        guard (0..<lines).contains(at.row) else { return }
        var column = at.column
        for character in text {
            let width = DisplayWidth.columns(character)
            guard width > 0 else { continue }
            let span = column..<(column + width)
            guard column >= 0, span.upperBound <= columns,
                  span.allSatisfy({ !taken[at.row][$0] && (!blankOnly || cells[at.row][$0] == " ") }) else { return }
            cells[at.row][column] = String(character)
            if width == 2 { cells[at.row][column + 1] = "" }
            for c in span { taken[at.row][c] = true }
            column += width
        }
    }
}
