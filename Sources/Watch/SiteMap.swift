/// The site seen from above, as characters: the zones' outlines dotted (`·`) with their names
/// inside, each gateway a `◆` with its id, each tag a `●` with its name and accuracy
/// (`cart ±4cm`), in a frame titled with the site's name. North (+y) is up. An accuracy wider
/// than two columns is also drawn, as a ring of `◦` around the tag: a poor fix should look it.
///
/// Scaled to fit `width` × `height` with the terminal's cells taken as twice as tall as wide, so
/// that a square room looks square; the frame shrinks to what the content needs, and the space
/// beside it is the caller's (the legend). Pure: the same site and size give the same rows.
public struct SiteMap: Sendable, Equatable {
    /// The framed map, each row the same number of columns.
    public var rows: [String] { lines.map { $0.rendered(width: .max, color: false) } }
    /// The same with a style per run, for a terminal with colour.
    let lines: [ScreenLine]
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
            lines = []
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
        let rowCount = min(innerHeight, Int((spanY / (2 * scale)).rounded(.up)) + 1)
        // Centred where the frame is larger than the content.
        let offsetColumn = (Double(columns - 1) - (maxX - minX) / scale) / 2
        let offsetRow = (Double(rowCount - 1) - (maxY - minY) / (2 * scale)) / 2
        /// Where a point falls, in cells (fractional), and the cell it is drawn in.
        func place(_ p: MapPoint) -> (row: Double, column: Double) {
            ((maxY - p.y) / (2 * scale) + offsetRow, (p.x - minX) / scale + offsetColumn)
        }
        func cell(_ p: MapPoint) -> (row: Int, column: Int) {
            let at = place(p)
            return (Int(at.row.rounded()), Int(at.column.rounded()))
        }

        var canvas = SiteMapCanvas(lines: rowCount, columns: columns)
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
        for tag in tags {
            // The 1σ circle, an ellipse in cells (a row is two columns' metres).
            guard let accuracy = tag.accuracy, accuracy / scale > 2, let centre = tag.position else { continue }
            let at = place(centre)
            let (across, down) = (accuracy / scale, accuracy / (2 * scale))
            // A cell is on the ring when the ellipse passes through it: its corners are not all
            // inside or all outside.
            // Only the ring's cells on the canvas: a ring wider than the site is its edge at most,
            // and a poor fix of a kilometre on a map of a metre must not cost a loop per cell off it.
            func cells(_ centre: Double, _ radius: Double, _ count: Int) -> ClosedRange<Int>? {
                let low = max(0, (centre - radius).rounded(.down)), high = min(Double(count - 1), (centre + radius).rounded(.up))
                return low <= high ? Int(low)...Int(high) : nil
            }
            guard let rows = cells(at.row, down, rowCount), let columnRange = cells(at.column, across, columns) else { continue }
            for row in rows {
                for column in columnRange {
                    let corners = [(-0.5, -0.5), (-0.5, 0.5), (0.5, -0.5), (0.5, 0.5)].map { dr, dc in
                        let u = (Double(column) + dc - at.column) / across, v = (Double(row) + dr - at.row) / down
                        return u * u + v * v < 1
                    }
                    if corners.contains(true), corners.contains(false) { canvas.dot((row, column), "◦", .cyan) }
                }
            }
        }
        let gatewayCells = gateways.sorted { $0.id < $1.id }.map { ($0.id, cell($0.position)) }
        let tagCells = tags.map { ($0, cell($0.position!)) }
        for (_, at) in gatewayCells { canvas.symbol("◆", at: at, .bold) }
        for (_, at) in tagCells { canvas.symbol("●", at: at, .cyan) }
        // Tags' labels first: where labels meet, the tag's is the one a person came for.
        for (tag, at) in tagCells { canvas.label(tag.name + (tag.accuracy.map { " ±" + Self.accuracy($0) } ?? ""), beside: at, .cyan) }
        for (id, at) in gatewayCells { canvas.label(id, beside: at, .bold) }
        for zone in site.zones where !zone.polygon.isEmpty {
            // Inside the zone's top-left corner: one row below its top, one column right of its left edge.
            let cells = zone.polygon.map(cell)
            let top = cells.map(\.row).min()!
            let left = cells.filter { $0.row == top }.map(\.column).min()!
            canvas.label(zone.name, at: (top + 1 < rowCount ? top + 1 : top, left + 1), .yellow, blankOnly: true)
        }

        let title = DisplayWidth.prefix("─ " + site.name + " ", columns: columns)
        let titleWidth = DisplayWidth.columns(title)
        lines = [ScreenLine("┌" + title + String(repeating: "─", count: columns - titleWidth) + "┐", .dim)]
            + canvas.lines.map { ScreenLine("│", .dim) + $0 + ScreenLine("│", .dim) }
            + [ScreenLine("└" + String(repeating: "─", count: columns) + "┘", .dim)]
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
