extension WatchScreen {
    /// The site block of `watch --site`: the map on the left, sized to about half the screen's
    /// height so that the gateways' rows and the events keep room below, and beside it what the
    /// map cannot say exactly: each tag's coordinates, accuracy and zones, and what is missing.
    static func siteLines(_ site: SiteView, gateways: [GatewayHeader], now: Double, width: Int, height: Int) -> [ScreenLine] {
        let placed = gateways.compactMap { gateway in gateway.position.map { (id: gateway.id, position: $0) } }
        // The legend's tag lines are about 44 columns; the map takes what is left, 24 at least.
        let map = SiteMap(site: site, gateways: placed, width: max(24, width - 46), height: max(6, (height - 2) / 2))
        var legend = [ScreenLine("site \(site.name)", .bold) + "  fuse "]
        legend[0].add(site.status ?? "?", site.status == "online" ? .green : site.status == nil ? .dim : .red)
        if map.rows.isEmpty {
            legend.append(ScreenLine("no positions yet: the gateways' status gives theirs, the fuse the tags'", .dim))
        } else {
            legend.append(ScreenLine("1 column = \(Metres.text(map.metresPerColumn)) m, 1 row = \(Metres.text(2 * map.metresPerColumn)) m, north up", .dim))
        }
        for tag in site.tags.values.sorted(by: { $0.name < $1.name }) {
            legend.append(tagLine(tag, now: now))
        }
        let unplaced = gateways.filter { $0.position == nil }.map(\.id)
        if !unplaced.isEmpty { legend.append(ScreenLine("◆ not on the map (no position in status): " + unplaced.joined(separator: ", "), .dim)) }
        if site.zones.isEmpty { legend.append(ScreenLine("zones not drawn: none in the fuse's status (--fuse-config FILE gives them)", .dim)) }
        if let problem = site.problem { legend.append(unreadable(problem, count: site.problemCount)) }

        let mapWidth = map.lines.first?.count ?? 0
        let blank = ScreenLine(String(repeating: " ", count: mapWidth))
        return (0..<max(map.lines.count, legend.count)).map { i in
            guard mapWidth > 0 else { return legend[i] }
            let left = i < map.lines.count ? map.lines[i] : blank
            return i < legend.count ? left + ScreenLine("  ") + legend[i] : left
        }
    }

    /// `● cart  1.02, 3.98 m  ±4cm  [checkout]  4 gateways  0.2s`; `○ cart  no position, 2 gateways
    /// in range`. The age is the newest position's: a tag the fuse stopped placing looks stale.
    static func tagLine(_ tag: SiteTag, now: Double) -> ScreenLine {
        guard let position = tag.position else {
            var line = ScreenLine("○ ", .red)
            line.add(tag.name + "  no position")
            if let count = tag.gatewaysInRange { line.add(", \(count) gateway\(count == 1 ? "" : "s") in range") }
            if !tag.zones.isEmpty { line.add("  [" + tag.zones.joined(separator: ", ") + "]") }
            return line
        }
        var line = ScreenLine("● ", .cyan)
        line.add(tag.name + "  \(Metres.text(position.x)), \(Metres.text(position.y)) m")
        if let accuracy = tag.accuracy { line.add("  ±" + SiteMap.accuracy(accuracy), accuracy > 0.5 ? .yellow : .plain) }
        if !tag.zones.isEmpty { line.add("  [" + tag.zones.joined(separator: ", ") + "]") }
        if let count = tag.gatewaysInRange { line.add("  \(count) gateway\(count == 1 ? "" : "s")", .dim) }
        let since = age(tag.updated, now: now)
        if !since.isEmpty { line.add("  " + since, .dim) }
        return line
    }
}
