/// The drawn view of `watch`: the model as the lines of a terminal screen of `width` × `height`.
/// At the top a title, then per gateway a header (status, device, rate, dropped, rules) and a row
/// per peer with its filtered distance as a number and as a bar on one scale for all peers, so
/// that who is nearer shows at a glance; below, the latest events in words, as many as fit.
/// With a site, its map and legend sit between the title and the gateways. Gateways' lines that
/// do not fit scroll (the session moves `scroll` on the arrow and page keys), the title and the
/// map stay. Lines are cut at the width, never wrapped: a wrapped line would push the rest off
/// the screen. Pure: the session passes the time, the size and the scroll, and writes the lines.
public enum WatchScreen {
    /// `title` says what `watch` itself is doing (its broker connection); `now` is seconds since
    /// 1970, for the clock and the age of each peer's last measurement.
    public static func lines(_ model: WatchModel, title: String, now: Double, width: Int, height: Int, color: Bool) -> [String] {
        frame(model, title: title, now: now, width: width, height: height, color: color, scroll: 0).lines
    }

    /// The frame with the gateways' lines scrolled by `scroll` lines when they do not all fit
    /// under the title and the site map; the last line then says what is above and below.
    public static func frame(_ model: WatchModel, title: String, now: Double, width: Int, height: Int, color: Bool, scroll: Int) -> WatchFrame {
        guard width > 0, height > 0 else { return WatchFrame(lines: [], scroll: 0, page: 0) }
        var fixed = [ScreenLine("uwb2mqtt watch", .bold) + "  \(WallClock.clock(secondsSince1970: now)) UTC  \(title)"]
        let gateways = model.gateways.values.sorted { $0.id < $1.id }
        if let site = model.site {
            fixed.append(ScreenLine())
            fixed += siteLines(site, gateways: gateways, now: now, width: width, height: height)
        }
        var top: [ScreenLine] = []
        if gateways.isEmpty { top.append(ScreenLine("waiting for a gateway under \(model.base)/", .dim)) }
        let scale = max(gateways.flatMap { $0.peers.values.compactMap(\.distance) }.max() ?? 0, 5)
        let barWidth = 12 + max(0, (width - 80) / 2)
        for gateway in gateways {
            top.append(ScreenLine())
            top += header(gateway)
            guard !gateway.peers.isEmpty else {
                top.append(ScreenLine("  no peers yet", .dim))
                continue
            }
            top.append(columns(scale: scale, barWidth: barWidth))
            for row in gateway.peers.values.sorted(by: { $0.name < $1.name }) {
                let marks = gateway.thresholds.filter { $0.isMarked && $0.applies(to: row.name, mac: row.mac) }.map(\.metres)
                top.append(peer(row, scale: scale, barWidth: barWidth, now: now, marks: marks))
            }
            for (rule, peers) in gateway.rankings.sorted(by: { $0.key < $1.key }) {
                top.append(ranking(rule, peers))
            }
        }
        // On a screen of 20 rows or more the two newest events stay in view (a blank, the heading
        // and two lines) even when the gateways' lines must scroll for it: what the rules decided
        // is what a person watches for.
        let eventReserve = height >= 20 ? 4 : 0
        var shownScroll = 0, page = top.count
        let room = height - fixed.count - 1 - eventReserve
        if fixed.count + top.count + eventReserve > height, room >= 1 {
            shownScroll = min(max(scroll, 0), top.count - room)
            let above = shownScroll, below = top.count - room - shownScroll
            func counted(_ n: Int) -> String { n == 1 ? "1 line" : "\(n) lines" }
            var more = below > 0 ? "\(counted(below)) more below" + (above > 0 ? ", \(above) above" : "") : "\(counted(above)) above"
            more += ": " + [above > 0 ? "↑ PgUp" : "", below > 0 ? "↓ PgDn" : ""].filter { !$0.isEmpty }.joined(separator: " ") + " to scroll"
            top = Array(top[shownScroll..<(shownScroll + room)]) + [ScreenLine("… " + more, .dim)]
            page = room
        } else if fixed.count + top.count > height {
            // Not even one gateway line fits beside the map: cut, as a too small terminal must.
            let all = fixed + top
            top = Array(all.prefix(height - 1)) + [ScreenLine("… \(all.count - height + 1) more lines: enlarge the terminal", .dim)]
            fixed = []
            page = 1
        }
        var screen = fixed + top
        let eventRoom = height - screen.count - 2
        if eventRoom > 0 {
            screen.append(ScreenLine())
            screen.append(ScreenLine("latest events", .bold))
            if model.events.isEmpty { screen.append(ScreenLine("none yet", .dim)) }
            for event in model.events.suffix(eventRoom) {
                let text = PlainLine.text(WatchChange(clock: event.clock, gateway: event.gateway, kind: .event(event)))
                screen.append(ScreenLine(String(text.prefix(8)), .dim) + String(text.dropFirst(8)))
            }
        }
        return WatchFrame(lines: screen.map { $0.rendered(width: width, color: color) }, scroll: shownScroll, page: page)
    }

    /// `lobby  online  device ranging fw 1.1.0-rc0  20.0/s  dropped 0  rules ok 78e0d9fc`, and a
    /// line more for a device error or a failed rules load, which are too long to share one.
    static func header(_ gateway: GatewayHeader) -> [ScreenLine] {
        var line = ScreenLine(gateway.id, .bold)
        line.add("  ")
        line.add(gateway.status ?? "status ?", gateway.status == "online" ? .green : gateway.status == nil ? .dim : .red)
        line.add("  device ")
        let device = gateway.deviceState ?? "?"
        line.add(device, device == "ranging" ? .green : device == "error" ? .red : device == "?" ? .dim : .yellow)
        if let firmware = gateway.firmware { line.add(" fw \(firmware)") }
        if let rate = gateway.measurementRate { line.add("  \(oneDecimal(rate))/s") }
        if let dropped = gateway.dropped { line.add("  dropped \(dropped)", dropped > 0 ? .yellow : .plain) }
        line.add("  rules ")
        switch gateway.rulesOK {
        case true?: line.add("ok", .green)
        case false?: line.add("FAILED", .red)
        case nil: line.add("?", .dim)
        }
        if let sha = gateway.rulesSHA { line.add(" \(sha.prefix(8))") }
        var lines = [line]
        if let problem = gateway.problem { lines.append(unreadable(problem, count: gateway.problemCount)) }
        if let error = gateway.deviceError { lines.append(ScreenLine("  device error: ", .red) + error) }
        if gateway.rulesOK == false {
            lines.append(ScreenLine("  rules error: ", .red) + (gateway.rulesError ?? "no reason given")
                + (gateway.rulesSHA.map { "; still running \($0.prefix(8))" } ?? ""))
        }
        return lines
    }

    /// `  ! unreadable: 12:03:04 device: not a JSON object: {"state": …` under the header of the gateway (or site)
    /// that sent it: what `--plain` prints as a line, kept in view until a newer one replaces it.
    static func unreadable(_ problem: String, count: Int) -> ScreenLine {
        ScreenLine("  ! ", .red) + (count > 1 ? "unreadable (\(count), the newest): " : "unreadable: ") + problem
    }

    /// `  ranking nearest: 1 phone-anna  2 tool-cart`, best first.
    static func ranking(_ rule: String, _ peers: [String]) -> ScreenLine {
        var line = ScreenLine("  ranking \(rule): ", .dim)
        line.add(peers.isEmpty ? "nobody" : peers.enumerated().map { "\($0.offset + 1) \($0.element)" }.joined(separator: "  "))
        return line
    }

    /// The peers' column titles; the bar's shows its scale.
    static func columns(scale: Double, barWidth: Int) -> ScreenLine {
        let end = Metres.text(scale) + " m"
        let bar = "0" + String(repeating: " ", count: max(1, barWidth - 1 - end.count)) + end
        return ScreenLine("  " + pad("peer", 12) + " " + pad("link", 10) + " " + pad("distance", 8, right: true) + "  "
            + pad(bar, barWidth) + "  " + pad("age", 4, right: true) + "  stage, zones, approaches", .dim)
    }

    /// `  phone-anna   ranging      0.91 m  ███▋              0.1s  reach 75%  facing 5° phone  [counter]  handoff idle 0%`;
    /// a lost peer is marked `✗` and keeps its last distance, dimmed.
    static func peer(_ row: PeerRow, scale: Double, barWidth: Int, now: Double, marks: [Double] = []) -> ScreenLine {
        let lost = row.link == "lost"
        var line = ScreenLine(lost ? "✗ " : "  ", .red)
        line.add(pad(DisplayWidth.columns(row.name) > 12 ? DisplayWidth.prefix(row.name, columns: 11) + "…" : row.name, 12) + " ")
        line.add(pad(row.link ?? "?", 10), lost ? .red : row.link == "ranging" ? .green : .yellow)
        line.add(" " + pad(row.distance.map { Metres.text($0) + " m" } ?? "", 8, right: true) + "  ")
        line.add(pad(bar(row.distance, scale: scale, width: barWidth, marks: marks), barWidth), lost ? .dim : .cyan)
        line.add("  " + pad(age(row.lastMeasurement, now: now), 4, right: true))
        var tail: [String] = []
        if let stage = row.stage { tail.append(stage + (row.progress.map { " " + percent($0) } ?? "")) }
        // Beside the stage, whose guidance it completes; in words, not colour alone: `facing 5°
        // phone`, `not facing 40° phone`, `-12° gateway`.
        if let source = row.directionSource {
            let facing = row.facing.map { $0 ? "facing " : "not facing " } ?? ""
            tail.append(facing + (row.azimuth.map { "\(Int($0.rounded()))° " } ?? "") + source)
        }
        if !row.zones.isEmpty { tail.append("[" + row.zones.joined(separator: ", ") + "]") }
        for approach in row.approaches {
            tail.append("\(approach.rule) \(approach.phase)" + (approach.progress.map { " " + percent($0) } ?? ""))
        }
        if !tail.isEmpty { line.add("  " + tail.joined(separator: "  ")) }
        return line
    }

    /// Full blocks and an eighth block for the rest, so that 5 cm show on a 5 m scale of 12 cells.
    /// The rules' distances that apply to the peer (`marks`, metres) are ticks on the same scale:
    /// `│` ahead of the peer, `▓` in the part it has covered, so that a person sees how far the
    /// next zone, stage or approach step is.
    static func bar(_ distance: Double?, scale: Double, width: Int, marks: [Double] = []) -> String {
        guard scale > 0, width > 0 else { return "" }
        var cells = [Character](repeating: " ", count: width)
        var filled = 0
        if let distance, distance.isFinite {
            let eighths = Int((min(max(distance, 0), scale) / scale * Double(width * 8)).rounded())
            filled = min(eighths / 8, width)
            for index in 0..<filled { cells[index] = "█" }
            if eighths % 8 > 0, filled < width { cells[filled] = Array("▏▎▍▌▋▊▉")[eighths % 8 - 1] }
        }
        for mark in marks where mark.isFinite && mark > 0 && mark < scale {
            let index = min(width - 1, Int(mark / scale * Double(width)))
            cells[index] = index < filled ? "▓" : cells[index] == " " ? "│" : cells[index]
        }
        guard let last = cells.lastIndex(where: { $0 != " " }) else { return "" }
        return String(cells[...last])
    }

    /// How long ago the newest measurement was: `0.4s`, `12s`, `3m`, `2h`.
    static func age(_ ts: String?, now: Double) -> String {
        guard let ts, let then = WallClock.seconds(ts: ts) else { return "" }
        let seconds = max(0, now - then)
        if seconds < 10 { return oneDecimal(seconds) + "s" }
        if seconds < 60 { return "\(Int(seconds))s" }
        if seconds < 3600 { return "\(Int(seconds / 60))m" }
        return "\(Int(seconds / 3600))h"
    }

    static func percent(_ fraction: Double) -> String {
        "\(Int((min(max(fraction, 0), 1) * 100).rounded()))%"
    }

    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(abs(tenths % 10))"
    }

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - DisplayWidth.columns(text)))
        return right ? fill + text : text + fill
    }
}
