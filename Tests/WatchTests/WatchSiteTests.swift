import Testing
import Watch

/// `watch --site`: the fuse's tree read into the site, and the drawn view with the map beside
/// the tags' coordinates.
@Suite struct WatchSiteTests {
    /// 2026-11-29T12:03:05Z.
    static let now = 1_795_953_785.0

    struct Feed {
        var model = WatchModel(base: "uwb2mqtt", site: SiteView(name: "lobby", zones: [
            SiteZone(name: "desk", polygon: [MapPoint(x: 0, y: 0), MapPoint(x: 2, y: 0), MapPoint(x: 2, y: 2), MapPoint(x: 0, y: 2)]),
        ]))

        mutating func lines(_ topic: String, _ payload: String, retained: Bool = false) -> [String] {
            model.receive(topic: "uwb2mqtt/" + topic, payload: Array(payload.utf8), retained: retained, receivedAt: WatchSiteTests.now)
                .map(PlainLine.text)
        }
    }

    /// Three gateways with positions, the fuse online and the tag `cart` placed at (5, 2.4).
    static func lobby() -> Feed {
        var feed = Feed()
        for (id, x, y) in [("gw-a", 0, 0), ("gw-b", 6, 0), ("gw-c", 6, 4)] {
            _ = feed.lines("\(id)/status", #"{"state": "online", "ts": "2026-11-29T12:00:00.000Z", "version": "0.1.0", "position": {"x": \#(x), "y": \#(y), "z": 2.5}, "heading_deg": 0}"#, retained: true)
        }
        _ = feed.lines("site/lobby/status", #"{"state": "online", "ts": "2026-11-29T12:00:01.000Z", "version": "0.1.0", "instance": "5f3a"}"#, retained: true)
        _ = feed.lines("site/lobby/peer/cart/state", #"{"ts": "2026-11-29T12:03:04.000Z", "peer": "cart", "position": {"x": 4.9, "y": 2.3, "z": 1.0, "accuracy_m": 0.05}, "zones": [], "gateways_in_range": 3}"#, retained: true)
        _ = feed.lines("site/lobby/peer/cart/position", #"{"ts": "2026-11-29T12:03:04.500Z", "peer": "cart", "frame": "site", "x": 5.0, "y": 2.4, "z": 1.0, "accuracy_m": 0.04, "gateways": ["gw-a", "gw-b", "gw-c"], "method": "multilateration"}"#)
        _ = feed.lines("site/lobby/peer/cart/event", #"{"ts": "2026-11-29T12:02:58.000Z", "peer": "cart", "type": "zone_exit", "rule": "desk", "from": "inside", "to": "outside", "distance_m": null, "reason": {"dwell_ms": 200}}"#)
        return feed
    }

    @Test func theFuseTreeFillsTheSite() {
        var feed = Self.lobby()
        let site = feed.model.site
        #expect(site?.status == "online")
        #expect(site?.tags["cart"]?.position == MapPoint(x: 5, y: 2.4) && site?.tags["cart"]?.accuracy == 0.04 && site?.tags["cart"]?.gatewaysInRange == 3)
        #expect(feed.model.gateways["gw-c"]?.position == MapPoint(x: 6, y: 4))
        // The fuse's site is no gateway.
        #expect(feed.model.gateways["site"] == nil)
        // A position older than what is known does not move the tag back.
        #expect(feed.lines("site/lobby/peer/cart/position", #"{"ts": "2026-11-29T12:03:04.400Z", "peer": "cart", "x": 1, "y": 1, "accuracy_m": 0.5}"#).isEmpty)
        #expect(feed.model.site?.tags["cart"]?.position == MapPoint(x: 5, y: 2.4))
        // The fuse loses the tag: no position, and the state says so.
        #expect(feed.lines("site/lobby/peer/cart/event", #"{"id": "site-lobby:5f3a:2", "ts": "2026-11-29T12:03:06.000Z", "peer": "cart", "type": "position_lost", "rule": null, "from": "located", "to": "lost", "distance_m": null, "reason": {"cause": "too_few_gateways", "last_seen": "2026-11-29T12:03:04.500Z"}, "cue": null}"#)
            == ["12:03:06 site/lobby  cart  position_lost: too few gateways, last seen 12:03:04"])
        _ = feed.lines("site/lobby/peer/cart/state", #"{"ts": "2026-11-29T12:03:06.000Z", "peer": "cart", "position": null, "zones": [], "gateways_in_range": 2}"#, retained: true)
        #expect(feed.model.site?.tags["cart"]?.position == nil && feed.model.site?.tags["cart"]?.gatewaysInRange == 2)
    }

    /// The fuse's retained status gives the zones it runs with: they replace what a config said.
    @Test func theFusesStatusGivesTheZones() {
        var feed = Feed()
        _ = feed.lines("site/lobby/status", #"{"state": "online", "ts": "2026-11-29T12:00:01.000Z", "version": "0.1.0", "instance": "5f3a", "zones": [{"name": "checkout", "polygon": [[0, 0], [2, 0], [2, 1.5], [0, 1.5]]}, {"name": "broken", "polygon": [[0, 0], [1]]}]}"#, retained: true)
        #expect(feed.model.site?.zones == [SiteZone(name: "checkout", polygon: [MapPoint(x: 0, y: 0), MapPoint(x: 2, y: 0),
                                                                               MapPoint(x: 2, y: 1.5), MapPoint(x: 0, y: 1.5)])])
        // A fuse that gives none leaves the config's.
        var older = Feed()
        _ = older.lines("site/lobby/status", #"{"state": "online", "ts": "2026-11-29T12:00:01.000Z", "version": "0.1.0"}"#, retained: true)
        #expect(older.model.site?.zones.map(\.name) == ["desk"])
    }

    @Test func siteLinesInPlain() {
        var feed = Feed()
        #expect(feed.lines("site/lobby/status", #"{"state": "online", "ts": "2026-11-29T12:00:01.000Z", "version": "0.1.0"}"#, retained: true)
            == ["12:00:01 site/lobby  fuse online"])
        #expect(feed.lines("site/lobby/peer/cart/event", #"{"ts": "2026-11-29T12:03:04.000Z", "peer": "cart", "type": "zone_enter", "rule": "desk", "from": "outside", "to": "inside", "distance_m": null, "reason": {"dwell_ms": 200}}"#)
            == ["12:03:04 site/lobby  cart  zone_enter desk after 200 ms dwell"])
        #expect(feed.lines("site/lobby/peer/cart/state", "{oops") == ["12:03:05 site/lobby  peer/cart/state: not a JSON object: {oops"])
        #expect(feed.model.site?.problem == "12:03:05 peer/cart/state: not a JSON object: {oops")
        // Another site's tree is not read.
        #expect(feed.lines("site/hall/status", #"{"state": "online"}"#).isEmpty)
    }

    @Test func theMapBesideTheTagsAt80x24() {
        let screen = WatchScreen.lines(Self.lobby().model, title: "connected", now: Self.now, width: 80, height: 24, color: false)
        // The map takes the left half of the screen's height, the tags' coordinates sit beside it,
        // the gateways' rows follow under it as far as they fit with the newest events kept below.
        #expect(screen == [
            "uwb2mqtt watch  12:03:05 UTC  connected",
            "",
            "┌─ lobby ─────────────────┐  site lobby  fuse online",
            "│                    gw-c◆│  1 column = 0.25 m, 1 row = 0.50 m, north up",
            "│                         │  ● cart  5.00, 2.40 m  ±4cm  3 gateways  0.5s",
            "│                         │",
            "│           cart ±4cm●    │",
            "│·········                │",
            "│·desk   ·                │",
            "│·       ·                │",
            "│·       ·                │",
            "│◆gw-a····           gw-b◆│",
            "└─────────────────────────┘",
            "",
            "gw-a  online  device ?  rules ?",
            "  no peers yet",
            "",
            "gw-b  online  device ?  rules ?",
            "  no peers yet",
            "… 3 lines more below: ↓ PgDn to scroll",
            "",
            "latest events",
            "12:02:58 site/lobby  cart  zone_exit desk after 200 ms dwell",
        ])
    }

    @Test func colourMarksTheTagsTheGatewaysAndTheZones() {
        let plain = WatchScreen.lines(Self.lobby().model, title: "", now: Self.now, width: 80, height: 24, color: false)
        let coloured = WatchScreen.lines(Self.lobby().model, title: "", now: Self.now, width: 80, height: 24, color: true)
        #expect(coloured.map { $0.replacing(#/\x1B\[\d*m/#, with: "") } == plain)
        #expect(coloured[6].contains("\u{1B}[36mcart ±4cm●\u{1B}[0m"))
        #expect(coloured[11].contains("\u{1B}[1m◆gw-a\u{1B}[0m\u{1B}[33m····\u{1B}[0m"))
    }

    @Test func withoutZonesOrPositionsTheLegendSaysWhatIsMissing() {
        var model = WatchModel(base: "uwb2mqtt", site: SiteView(name: "lobby"))
        _ = model.receive(topic: "uwb2mqtt/gw-a/status", payload: Array(#"{"state": "online", "ts": "2026-11-29T12:00:00.000Z", "position": null}"#.utf8),
                          retained: true, receivedAt: Self.now)
        _ = model.receive(topic: "uwb2mqtt/site/lobby/peer/cart/state", payload: Array(#"{"ts": "2026-11-29T12:03:04.000Z", "peer": "cart", "position": null, "zones": [], "gateways_in_range": 1}"#.utf8),
                          retained: true, receivedAt: Self.now)
        let screen = WatchScreen.lines(model, title: "connected", now: Self.now, width: 80, height: 24, color: false)
        #expect(Array(screen[2...7]) == [
            "site lobby  fuse ?",
            "no positions yet: the gateways' status gives theirs, the fuse the tags'",
            "○ cart  no position, 1 gateway in range",
            "◆ not on the map (no position in status): gw-a",
            "zones not drawn: none in the fuse's status (--fuse-config FILE gives them)",
            "",
        ])
    }
}
