#if canImport(Glibc)
import Gateway
import Glibc
#endif
import FoundationEssentials

/// What `uwb2mqtt replay --svg` draws: per peer, raw and filtered distance over time, the rule
/// thresholds as bands, the events and the signal-loss gaps.
///
/// Its own small model rather than the proximity engine's types, so that the plot depends on
/// nothing but numbers and names: the replay command fills it from whatever the engine produced.
/// Times are seconds since the epoch (the engine's clock); the plot shows them as seconds from
/// ``startTime``.
public struct PlotData: Sendable {
    /// One measurement as the device reported it.
    public struct RawPoint: Hashable, Sendable {
        public var time: Double
        /// Metres; nil when the device gave no distance (a failed measurement).
        public var meters: Double?
        /// False for a failed measurement (status not ok): drawn apart so that dropouts show.
        public var ok: Bool = true
    }

    /// One filtered distance.
    public struct Point: Hashable, Sendable {
        public var time: Double
        public var meters: Double
    }

    /// A threshold of a rule as a horizontal band (`low` < `high`) or line (`low` == `high`).
    public struct Band: Hashable, Sendable {
        public var name: String
        public var low: Double
        public var high: Double
        /// What one rule of its kind is called (`zone`): the legend's word and the SVG class.
        public var kind: String
        /// Its kind's place in the table of rule kinds, which sets its colour.
        public var kindOrder: Int
        public init(name: String, low: Double, high: Double, kind: String, kindOrder: Int) {
            self.name = name
            self.low = min(low, high)
            self.high = max(low, high)
            self.kind = kind
            self.kindOrder = kindOrder
        }
    }

    /// A discrete event (`zone_enter`, `stage_change`, …) as a labelled vertical marker.
    public struct Event: Hashable, Sendable {
        public var time: Double
        /// The event type as in the MQTT `event` payload; sets the colour.
        public var type: String
        /// The text beside the marker (`zone_enter counter`, `stage point → reach`).
        public var label: String
        /// What it means to the person reading the plot; sets the colour.
        public var tone: Tone = .other

        /// Something begins or is gained, ends or is lost, is done, just changes; or unknown.
        public enum Tone: Hashable, Sendable { case begins, ends, completes, changes, other }
    }

    /// A span during which the link was `lost`; `to` nil when it was still lost at the end.
    public struct Gap: Hashable, Sendable {
        public var from: Double
        public var to: Double?
    }

    /// Everything drawn in one peer's panel.
    public struct Peer: Hashable, Sendable {
        public var name: String
        public var raw: [RawPoint]
        public var filtered: [Point]
        public var bands: [Band]
        public var events: [Event]
        public var gaps: [Gap]
        public init(name: String, raw: [RawPoint] = [], filtered: [Point] = [], bands: [Band] = [], events: [Event] = [], gaps: [Gap] = []) {
            self.name = name
            self.raw = raw
            self.filtered = filtered
            self.bands = bands
            self.events = events
            self.gaps = gaps
        }
    }

    public var title: String
    /// A second, smaller line under the title (the recording and rules files, for instance).
    public var subtitle: String?
    /// Time zero of the axis, seconds since the epoch; nil: the earliest time in the data.
    public var startTime: Double?
    /// End of the axis; nil: the latest time in the data.
    public var endTime: Double?
    public var peers: [Peer]
}

/// Renders ``PlotData`` as one self-contained SVG document: no scripts, no external fonts or
/// styles, so that it opens the same in a browser, an image viewer or a bug report.
///
/// Layout choices, for a reader who has never seen the rules: every panel shares one time axis so
/// events of different peers line up; thresholds are labelled in the right margin with their values;
/// event labels are stacked in lanes above the plot so that close events stay legible.
public enum SVGPlot {
    static let width = 1200.0
    static let left = 70.0
    static let right = 250.0
    static let plotHeight = 220.0
    static let laneHeight = 13.0
    static let maxLanes = 4
    /// Above this many raw points a panel draws them as one path of dots instead of circles.
    static let circleLimit = 4000

    /// The SVG text of `plot`.
    public static func render(_ plot: PlotData) -> String {
        let (t0, t1) = timeRange(plot)
        let plotWidth = width - left - right
        let timeAxis = Axis(low: 0, high: t1 - t0, pixels: plotWidth, targetTicks: 12)
        func x(_ time: Double) -> Double { left + timeAxis.position(time - t0) }

        var body = ""
        var y = 34.0
        body += text(plot.title, x: left, y: y, attributes: ##"font-size="18" font-weight="bold""##)
        if let subtitle = plot.subtitle {
            y += 18
            body += text(subtitle, x: left, y: y, attributes: ##"font-size="12" fill="#555""##)
        }
        y += 22
        body += legend(y: y, kinds: bandKinds(plot))
        y += 20

        if plot.peers.isEmpty {
            y += 30
            body += text("no peers in this recording", x: left, y: y, attributes: ##"font-size="14" fill="#888""##)
        }
        for (index, peer) in plot.peers.enumerated() {
            let lanes = eventLanes(peer.events, x: x)
            let laneCount = min(maxLanes, (lanes.map(\.lane).max() ?? -1) + 1)
            y += 26
            body += text(peer.name, x: left, y: y, attributes: ##"font-size="14" font-weight="bold""##)
            y += 8 + Double(laneCount) * laneHeight
            body += panel(peer, index: index, top: y, laneTop: y - Double(laneCount) * laneHeight, lanes: lanes,
                          timeAxis: timeAxis, x: x, plotWidth: plotWidth)
            y += plotHeight + 46
        }
        let height = (y + 10).rounded()
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(f(width))" height="\(f(height))" viewBox="0 0 \(f(width)) \(f(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="11">
        <title>\(escape(plot.title))</title>
        <rect x="0" y="0" width="\(f(width))" height="\(f(height))" fill="#ffffff"/>
        \(body)</svg>

        """
    }

    // MARK: Panels

    private static func panel(_ peer: PlotData.Peer, index: Int, top: Double, laneTop: Double, lanes: [(event: PlotData.Event, lane: Int)],
                              timeAxis: Axis, x: (Double) -> Double, plotWidth: Double) -> String {
        let distanceAxis = Axis(low: 0, high: distanceMax(peer), pixels: plotHeight, targetTicks: 6)
        func y(_ meters: Double) -> Double { top + plotHeight - distanceAxis.position(meters) }
        let bottom = top + plotHeight
        let clip = "clip-\(index)"
        var out = "<g class=\"panel\" id=\"peer-\(index)\">\n"
        out += "<clipPath id=\"\(clip)\"><rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotWidth))\" height=\"\(f(plotHeight))\"/></clipPath>\n"
        out += "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotWidth))\" height=\"\(f(plotHeight))\" fill=\"#fbfbfb\" stroke=\"#999\"/>\n"

        // Grid and ticks.
        for tick in distanceAxis.ticks {
            let ty = y(tick)
            out += "<line x1=\"\(f(left))\" y1=\"\(f(ty))\" x2=\"\(f(left + plotWidth))\" y2=\"\(f(ty))\" stroke=\"#e6e6e6\"/>\n"
            out += "<line x1=\"\(f(left - 4))\" y1=\"\(f(ty))\" x2=\"\(f(left))\" y2=\"\(f(ty))\" stroke=\"#666\"/>\n"
            out += text(distanceAxis.label(tick), x: left - 7, y: ty + 4, attributes: ##"text-anchor="end" fill="#333""##)
        }
        for tick in timeAxis.ticks {
            let tx = left + timeAxis.position(tick)
            out += "<line x1=\"\(f(tx))\" y1=\"\(f(top))\" x2=\"\(f(tx))\" y2=\"\(f(bottom))\" stroke=\"#eeeeee\"/>\n"
            out += "<line x1=\"\(f(tx))\" y1=\"\(f(bottom))\" x2=\"\(f(tx))\" y2=\"\(f(bottom + 4))\" stroke=\"#666\"/>\n"
            out += text(timeAxis.label(tick), x: tx, y: bottom + 16, attributes: ##"text-anchor="middle" fill="#333""##)
        }
        out += text("time (s)", x: left + plotWidth / 2, y: bottom + 32, attributes: ##"text-anchor="middle" fill="#333" class="axis-label""##)
        let mid = top + plotHeight / 2
        out += text("distance (m)", x: 18, y: mid, attributes: "text-anchor=\"middle\" fill=\"#333\" class=\"axis-label\" transform=\"rotate(-90 18 \(f(mid)))\"")

        out += "<g clip-path=\"url(#\(clip))\">\n"
        // Signal-loss gaps, under everything else.
        for gap in peer.gaps {
            let x0 = x(gap.from), x1 = gap.to.map(x) ?? left + plotWidth
            out += "<rect class=\"gap\" x=\"\(f(x0))\" y=\"\(f(top))\" width=\"\(f(max(1, x1 - x0)))\" height=\"\(f(plotHeight))\" fill=\"#808080\" fill-opacity=\"0.22\"/>\n"
        }
        // Threshold bands.
        for band in peer.bands {
            let color = bandColor(band.kindOrder)
            let yHigh = y(band.high), yLow = y(band.low)
            if band.high > band.low {
                out += "<rect class=\"band \(band.kind)\" x=\"\(f(left))\" y=\"\(f(yHigh))\" width=\"\(f(plotWidth))\" height=\"\(f(max(1, yLow - yHigh)))\" fill=\"\(color)\" fill-opacity=\"0.16\" stroke=\"\(color)\" stroke-opacity=\"0.6\" stroke-dasharray=\"5 3\"/>\n"
            } else {
                out += "<rect class=\"band \(band.kind)\" x=\"\(f(left))\" y=\"\(f(yLow - 0.75))\" width=\"\(f(plotWidth))\" height=\"1.5\" fill=\"\(color)\" fill-opacity=\"0.8\"/>\n"
            }
        }
        // Raw measurements: light dots; failed ones as red crosses along the bottom.
        let okPoints = peer.raw.filter { $0.ok && $0.meters != nil }
        if okPoints.count <= circleLimit {
            out += "<g class=\"raw\" fill=\"#7aa6d6\" fill-opacity=\"0.55\">"
            for p in okPoints { out += "<circle cx=\"\(f(x(p.time)))\" cy=\"\(f(y(p.meters!)))\" r=\"1.8\"/>" }
            out += "</g>\n"
        } else {
            var d = ""
            for p in okPoints { d += "M\(f(x(p.time))) \(f(y(p.meters!)))h0" }
            out += "<path class=\"raw\" d=\"\(d)\" stroke=\"#7aa6d6\" stroke-opacity=\"0.55\" stroke-width=\"3.6\" stroke-linecap=\"round\" fill=\"none\"/>\n"
        }
        let failed = peer.raw.filter { !$0.ok }
        if !failed.isEmpty {
            var d = ""
            for p in failed {
                let px = x(p.time)
                d += "M\(f(px - 2.5)) \(f(bottom - 8.5))l5 5M\(f(px - 2.5)) \(f(bottom - 3.5))l5 -5"
            }
            out += "<path class=\"failed\" d=\"\(d)\" stroke=\"#d62728\" stroke-width=\"1.2\" fill=\"none\"/>\n"
        }
        // Filtered distance: one line, broken across signal-loss gaps.
        var d = ""
        var penDown = false
        var previous: Double?
        for p in peer.filtered.sorted(by: { $0.time < $1.time }) {
            if let previous, peer.gaps.contains(where: { previous < ($0.to ?? .infinity) && p.time > $0.from }) { penDown = false }
            d += "\(penDown ? "L" : "M")\(f(x(p.time))) \(f(y(p.meters)))"
            penDown = true
            previous = p.time
        }
        out += "<path class=\"filtered\" d=\"\(d.isEmpty ? "M0 0" : d)\" stroke=\"#1f4e99\" stroke-width=\"2\" stroke-linejoin=\"round\" fill=\"none\"\(d.isEmpty ? " visibility=\"hidden\"" : "")/>\n"
        out += "</g>\n"

        // Events: vertical markers from their label lane through the plot; every label after every
        // line, on a white halo, so that no marker line strikes through another event's label.
        var markers = "", markerLabels = ""
        for (event, lane) in lanes {
            let ex = x(event.time)
            let color = eventColor(event.tone)
            let labelY = laneTop + Double(min(lane, maxLanes - 1)) * laneHeight + 10
            markers += "<line class=\"event\" x1=\"\(f(ex))\" y1=\"\(f(labelY + 2))\" x2=\"\(f(ex))\" y2=\"\(f(bottom))\" stroke=\"\(color)\" stroke-width=\"1.2\" stroke-dasharray=\"3 2\"/>\n"
            markerLabels += text(event.label, x: ex + 3, y: labelY,
                                 attributes: "class=\"event-label\" fill=\"\(color)\" font-size=\"10\" stroke=\"#ffffff\" stroke-width=\"3\" stroke-opacity=\"0.85\" paint-order=\"stroke\"")
        }
        out += markers + markerLabels

        // Band labels in the right margin, pushed apart so that none overlap.
        var labels = peer.bands.map { band in
            (band: band, y: (y(band.high) + y(band.low)) / 2 + 4)
        }.filter { $0.band.low <= distanceAxis.high }
        labels.sort { $0.y < $1.y }
        var lastY = -Double.infinity
        for i in labels.indices {
            labels[i].y = max(labels[i].y, lastY + 12)
            lastY = labels[i].y
        }
        // Labels pushed below the panel go back up, keeping their spacing.
        let overflow = lastY - (bottom + 4)
        if overflow > 0 {
            for i in labels.indices { labels[i].y -= overflow }
            var nextY = Double.infinity
            for i in labels.indices.reversed() {
                labels[i].y = min(labels[i].y, nextY - 12)
                nextY = labels[i].y
            }
        }
        for (band, ly) in labels {
            let value = band.high > band.low ? "\(distanceText(band.low))–\(distanceText(band.high)) m" : "\(distanceText(band.low)) m"
            out += text("\(band.name) \(value)", x: left + plotWidth + 8, y: ly, attributes: "fill=\"\(bandColor(band.kindOrder))\" class=\"band-label\"")
        }
        let above = peer.bands.filter { $0.low > distanceAxis.high }
        if !above.isEmpty {
            let names = above.map { "\($0.name) \(distanceText($0.low)) m" }.joined(separator: ", ")
            out += text("↑ above the plot: \(names)", x: left + plotWidth + 8, y: top + 10, attributes: ##"fill="#666" font-size="10""##)
        }
        out += "</g>\n"
        return out
    }

    /// The rule kinds whose bands some panel shows, in the table's order.
    static func bandKinds(_ plot: PlotData) -> [(kind: String, order: Int)] {
        var seen: [Int: String] = [:]
        for peer in plot.peers { for band in peer.bands { seen[band.kindOrder] = band.kind } }
        return seen.sorted { $0.key < $1.key }.map { ($0.value, $0.key) }
    }

    private static func legend(y: Double, kinds: [(kind: String, order: Int)]) -> String {
        var out = "<g class=\"legend\">"
        var x = left
        func item(_ symbol: String, _ label: String) {
            out += symbol + text(label, x: x + 22, y: y + 4, attributes: ##"fill="#333""##)
            x += 22 + Double(label.count) * 6.4 + 18
        }
        item("<circle cx=\"\(f(x + 8))\" cy=\"\(f(y))\" r=\"2.5\" fill=\"#7aa6d6\"/>", "raw distance")
        item("<path d=\"M\(f(x + 5)) \(f(y - 3))l6 6M\(f(x + 5)) \(f(y + 3))l6 -6\" stroke=\"#d62728\" stroke-width=\"1.2\"/>", "failed measurement")
        item("<line x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x + 16))\" y2=\"\(f(y))\" stroke=\"#1f4e99\" stroke-width=\"2\"/>", "filtered distance")
        for (kind, order) in kinds {
            item("<rect x=\"\(f(x))\" y=\"\(f(y - 5))\" width=\"16\" height=\"10\" fill=\"\(bandColor(order))\" fill-opacity=\"0.25\" stroke=\"\(bandColor(order))\"/>", "\(kind) threshold")
        }
        item("<line x1=\"\(f(x + 8))\" y1=\"\(f(y - 6))\" x2=\"\(f(x + 8))\" y2=\"\(f(y + 6))\" stroke=\"#2ca02c\" stroke-dasharray=\"3 2\"/>", "event")
        item("<rect x=\"\(f(x))\" y=\"\(f(y - 5))\" width=\"16\" height=\"10\" fill=\"#808080\" fill-opacity=\"0.3\"/>", "signal lost")
        return out + "</g>\n"
    }

    // MARK: Helpers

    /// Assigns each event the first label lane where its label does not overlap the previous one.
    static func eventLanes(_ events: [PlotData.Event], x: (Double) -> Double) -> [(event: PlotData.Event, lane: Int)] {
        var laneEnds = [Double](repeating: -.infinity, count: maxLanes)
        return events.sorted { $0.time < $1.time }.map { event in
            let start = x(event.time)
            let end = start + 3 + Double(event.label.count) * 5.8 + 6
            let lane = laneEnds.firstIndex { $0 <= start } ?? laneEnds.indices.min { laneEnds[$0] < laneEnds[$1] }!
            laneEnds[lane] = end
            return (event, lane)
        }
    }

    static func timeRange(_ plot: PlotData) -> (Double, Double) {
        var times: [Double] = []
        for peer in plot.peers {
            times += peer.raw.map(\.time) + peer.filtered.map(\.time) + peer.events.map(\.time)
            times += peer.gaps.flatMap { [$0.from] + ($0.to.map { [$0] } ?? []) }
        }
        let finite = times.filter(\.isFinite)
        let t0 = plot.startTime ?? finite.min() ?? 0
        var t1 = plot.endTime ?? finite.max() ?? t0 + 1
        if !(t1 > t0) { t1 = t0 + 1 }
        return (t0, t1)
    }

    /// The top of the distance axis: the data with some headroom, and the thresholds near it (a far
    /// stage boundary would squash the data, so bands beyond twice the data are noted, not drawn).
    static func distanceMax(_ peer: PlotData.Peer) -> Double {
        let data = (peer.raw.compactMap(\.meters) + peer.filtered.map(\.meters)).filter(\.isFinite).max() ?? 0
        let bands = peer.bands.map(\.high).filter { $0.isFinite && (data == 0 || $0 <= max(2 * data, 1)) }.max() ?? 0
        return max(data, bands, 0.5) * 1.08
    }

    /// Colours of the rule kinds' bands, by their place in the table (zones, stages, approaches…).
    static let bandPalette = ["#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#bcbd22", "#e377c2", "#8c564b", "#7f7f7f"]

    static func bandColor(_ order: Int) -> String {
        bandPalette[max(0, order) % bandPalette.count]
    }

    static func eventColor(_ tone: PlotData.Event.Tone) -> String {
        switch tone {
        case .begins: "#2ca02c"
        case .ends: "#d62728"
        case .completes: "#8c1aa3"
        case .changes: "#9467bd"
        case .other: "#555555"
        }
    }

    static func text(_ content: String, x: Double, y: Double, attributes: String) -> String {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" \(attributes)>\(escape(content))</text>\n"
    }

    /// XML text: the five predefined entities, and characters XML 1.0 forbids (controls other than
    /// tab and newline) replaced, so that any peer or rule name gives a well-formed document.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                let v = scalar.value
                if v < 0x20 || (0xFFFE...0xFFFF).contains(v) || (0xD800...0xDFFF).contains(v) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A coordinate with one decimal, no exponent, no `-0`.
    static func f(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let tenths = Int((value * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        let magnitude = tenths.magnitude
        return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
    }

    /// A distance for a label: up to two decimals, trailing zeros dropped.
    static func distanceText(_ meters: Double) -> String {
        guard meters.isFinite else { return "?" }
        let hundredths = Int((meters * 100).rounded())
        let whole = hundredths / 100, fraction = abs(hundredths % 100)
        if fraction == 0 { return "\(whole)" }
        return fraction % 10 == 0 ? "\(whole).\(fraction / 10)" : "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// A linear axis from `low` to a "nice" top, with ticks every 1, 2 or 5 × 10ⁿ.
    struct Axis {
        let low: Double
        let high: Double
        let pixels: Double
        let step: Double

        init(low: Double, high: Double, pixels: Double, targetTicks: Int) {
            let span = max(high - low, 1e-9)
            let rough = span / Double(targetTicks)
            let power = pow10(floor(log10(rough)))
            let step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= rough } ?? 10 * power
            self.low = low
            self.high = low + (span / step).rounded(.up) * step
            self.pixels = pixels
            self.step = step
        }

        func position(_ value: Double) -> Double { (value - low) / (high - low) * pixels }

        var ticks: [Double] {
            let count = Int(((high - low) / step).rounded())
            return (0...count).map { low + Double($0) * step }
        }

        func label(_ value: Double) -> String {
            step >= 1 ? String(Int(value.rounded())) : SVGPlot.distanceText(value)
        }
    }
}

private func pow10(_ exponent: Double) -> Double {
    var result = 1.0
    let n = Int(exponent)
    if n >= 0 { for _ in 0..<n { result *= 10 } } else { for _ in 0..<(-n) { result /= 10 } }
    return result
}
