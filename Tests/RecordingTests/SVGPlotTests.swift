import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import Gateway
@testable import OfflineTools

/// The replay plot is well-formed XML with the elements a reader relies on.
@Suite struct SVGPlotTests {
    /// A simulated walk-by: tool-cart comes from 8 m to 0.3 m and leaves again; phone-anna loses
    /// the link for a while. Times are seconds since the epoch.
    static func walkBy() -> PlotData {
        let t0 = 1_790_000_000.0
        func distance(_ t: Double) -> Double { 0.3 + abs(t - 30) * 0.26 }
        var raw: [PlotData.RawPoint] = []
        var filtered: [PlotData.Point] = []
        for i in 0..<300 {
            let t = Double(i) * 0.2
            let noise = sin(Double(i) * 12.9898) * 0.12
            if i % 37 == 5 {
                raw.append(PlotData.RawPoint(time: t0 + t, meters: nil, ok: false))
            } else {
                raw.append(PlotData.RawPoint(time: t0 + t, meters: distance(t) + noise))
            }
            filtered.append(PlotData.Point(time: t0 + t, meters: distance(t) + noise * 0.25))
        }
        let bands = [
            PlotData.Band(name: "zone counter", low: 1.0, high: 1.3, kind: "zone", kindOrder: 0),
            PlotData.Band(name: "stage locate|point", low: 1.0, high: 1.2, kind: "stage", kindOrder: 1),
            PlotData.Band(name: "stage far", low: 25, high: 25.2, kind: "stage", kindOrder: 1),
            PlotData.Band(name: "approach handoff start", low: 0.6, high: 0.7, kind: "approach", kindOrder: 2),
            PlotData.Band(name: "approach handoff confirm", low: 0.12, high: 0.12, kind: "approach", kindOrder: 2),
        ]
        let events = [
            PlotData.Event(time: t0 + 26.0, type: "stage_change", label: "stage locate → point"),
            PlotData.Event(time: t0 + 26.9, type: "zone_enter", label: "zone_enter counter"),
            PlotData.Event(time: t0 + 27.5, type: "approach_ready", label: "approach_ready handoff"),
            PlotData.Event(time: t0 + 32.6, type: "approach_canceled", label: "approach_canceled handoff"),
            PlotData.Event(time: t0 + 33.4, type: "zone_exit", label: "zone_exit counter <&>"),
            PlotData.Event(time: t0 + 34.2, type: "stage_change", label: "stage point → locate"),
        ]
        let cart = PlotData.Peer(name: "tool-cart", raw: raw, filtered: filtered, bands: bands, events: events)
        let anna = PlotData.Peer(
            name: "phone-anna \"Anna's\"",
            raw: raw.filter { $0.time < t0 + 20 || $0.time > t0 + 38 }.map { PlotData.RawPoint(time: $0.time, meters: $0.meters.map { $0 * 0.5 + 2 }, ok: $0.ok) },
            filtered: filtered.filter { $0.time < t0 + 20 || $0.time > t0 + 38 }.map { PlotData.Point(time: $0.time, meters: $0.meters * 0.5 + 2) },
            bands: [PlotData.Band(name: "zone counter", low: 1.0, high: 1.3, kind: "zone", kindOrder: 0)],
            events: [PlotData.Event(time: t0 + 22, type: "signal_lost", label: "signal_lost"),
                     PlotData.Event(time: t0 + 38, type: "signal_regained", label: "signal_regained")],
            gaps: [PlotData.Gap(from: t0 + 22, to: t0 + 38), PlotData.Gap(from: t0 + 58, to: nil)])
        return PlotData(title: "walk-by replayed with rules.yaml", subtitle: "walkby.uwbrec · 2 peers · 60 s", startTime: t0, endTime: t0 + 60, peers: [cart, anna])
    }

    /// Collects element names, `class` attributes and text.
    final class Collector: NSObject, XMLParserDelegate {
        var elements: [String: Int] = [:]
        var classes: [String: Int] = [:]
        var texts: [String] = []
        var current = ""
        var error: Error?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            elements[name, default: 0] += 1
            for c in (attributes["class"] ?? "").split(separator: " ") { classes[String(c), default: 0] += 1 }
            current = ""
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { current += string }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text" { texts.append(current) }
            current = ""
        }
        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { error = parseError }
    }

    static func parse(_ svg: String) -> (Collector, Bool) {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        let ok = parser.parse()
        return (collector, ok)
    }

    @Test func walkByIsWellFormedWithTheExpectedElements() throws {
        let plot = Self.walkBy()
        let svg = SVGPlot.render(plot)
        try svg.write(toFile: "/tmp/uwb2mqtt-plot-example.svg", atomically: true, encoding: .utf8)
        let (c, ok) = Self.parse(svg)
        #expect(ok, "\(String(describing: c.error))")
        #expect(c.elements["svg"] == 1)
        #expect(c.classes["filtered"] == 2)          // a filtered line per peer
        #expect(c.classes["panel"] == 2)
        let okRaw = plot.peers.reduce(0) { $0 + $1.raw.filter { $0.ok && $0.meters != nil }.count }
        #expect(c.elements["circle"] == okRaw + 1)   // every raw point, and the legend's
        #expect(c.classes["failed"] == 2)            // failed measurements, per peer
        #expect(c.classes["band"] == 6)
        #expect(c.classes["zone"] == 2 && c.classes["stage"] == 2 && c.classes["approach"] == 2)
        #expect(c.classes["gap"] == 2)
        #expect(c.classes["event"] == 8)
        #expect(c.classes["event-label"] == 8)
        #expect(c.texts.filter { $0 == "time (s)" }.count == 2)
        #expect(c.texts.filter { $0 == "distance (m)" }.count == 2)
        #expect(c.texts.contains("zone_exit counter <&>"))
        #expect(c.texts.contains("phone-anna \"Anna's\""))
        #expect(c.texts.contains("zone counter 1–1.3 m"))
        #expect(c.texts.contains("approach handoff confirm 0.12 m"))
        #expect(c.texts.contains { $0.hasPrefix("↑ above the plot: stage far 25 m") })
        #expect(c.texts.contains("walk-by replayed with rules.yaml"))
        for label in ["0", "10", "20", "30", "40", "50", "60"] { #expect(c.texts.contains(label)) }
    }

    @Test func hostileTextAndEmptyDataStayWellFormed() {
        let nasty = "a<b>&\"c'\u{01}\u{0B}]]>"
        let plot = PlotData(title: nasty, subtitle: nasty, peers: [
            PlotData.Peer(name: nasty, events: [PlotData.Event(time: 5, type: nasty, label: nasty)]),
            PlotData.Peer(name: "nothing at all"),
        ])
        let (c, ok) = Self.parse(SVGPlot.render(plot))
        #expect(ok)
        #expect(c.classes["filtered"] == 2)
        #expect(c.texts.contains("a<b>&\"c'\u{FFFD}\u{FFFD}]]>"))
        #expect(Self.parse(SVGPlot.render(PlotData(title: "empty", peers: []))).1)
    }

    @Test func manyPointsUseACompactPath() {
        let raw = (0..<10_000).map { PlotData.RawPoint(time: Double($0) * 0.1, meters: 1 + Double($0 % 50) / 10) }
        let svg = SVGPlot.render(PlotData(title: "long", peers: [PlotData.Peer(name: "p", raw: raw)]))
        let (c, ok) = Self.parse(svg)
        #expect(ok)
        #expect(c.elements["circle"] == 1)   // the legend only
        #expect(c.classes["raw"] == 1)
        #expect(svg.utf8.count < 400_000)
    }

    @Test func numbersAreFormattedForSVG() {
        #expect(SVGPlot.f(-0.04) == "0")
        #expect(SVGPlot.f(-1.25) == "-1.3" || SVGPlot.f(-1.25) == "-1.2")
        #expect(SVGPlot.f(12) == "12")
        #expect(SVGPlot.distanceText(0.12) == "0.12")
        #expect(SVGPlot.distanceText(1.3) == "1.3")
        #expect(SVGPlot.distanceText(0.05) == "0.05")
    }
}
