import Foundation
import Testing
import Watch

/// The drawn view as a person reads it on the terminal: a small site at 80×24, the bars, a lost
/// peer, a failed rules load and a narrow terminal.
@Suite struct WatchScreenTests {
    /// 2026-11-29T12:03:05Z.
    static let now = 1_795_953_785.0

    /// A gateway `lobby` with two peers, and two events.
    static func lobby() -> WatchModel {
        var model = WatchModel(base: "uwb2mqtt")
        func feed(_ topic: String, _ payload: String) {
            _ = model.receive(topic: "uwb2mqtt/" + topic, payload: Array(payload.utf8), retained: false, receivedAt: now)
        }
        feed("lobby/status", #"{"state": "online", "ts": "2026-11-29T12:00:00.000Z", "version": "0.1.0"}"#)
        feed("lobby/device", #"{"ts": "2026-11-29T12:00:01.000Z", "state": "ranging", "firmware": "1.1.0-rc0", "error": null}"#)
        feed("lobby/rules", #"{"ts": "2026-11-29T12:00:00.500Z", "ok": true, "sha256": "78e0d9fc0123456789", "error": null}"#)
        feed("lobby/metrics", #"{"ts": "2026-11-29T12:03:00.000Z", "uptime_s": 180, "measurements": 3600, "dropped": 0}"#)
        feed("lobby/peer/phone-anna/state", #"{"ts": "2026-11-29T12:03:04.000Z", "peer": "phone-anna", "link": "ranging", "distance_m": 0.91, "zones": ["counter"], "stage": "reach", "approaches": {"handoff": {"phase": "ready", "progress": 0.5}}}"#)
        feed("lobby/peer/phone-anna/range", #"{"ts": "2026-11-29T12:03:04.600Z", "peer": "phone-anna", "status": "ok", "distance_m": 0.88}"#)
        feed("lobby/peer/phone-anna/feedback", #"{"ts": "2026-11-29T12:03:04.600Z", "peer": "phone-anna", "progress": 0.75}"#)
        feed("lobby/peer/tool-cart/state", #"{"ts": "2026-11-29T12:02:50.000Z", "peer": "tool-cart", "link": "lost", "distance_m": 3.06, "zones": [], "stage": "locate", "approaches": {}}"#)
        feed("lobby/peer/tool-cart/event", #"{"ts": "2026-11-29T12:02:51.000Z", "peer": "tool-cart", "type": "signal_lost", "reason": {"cause": "measurement_errors", "last_seen": "2026-11-29T12:02:50.000Z"}}"#)
        feed("lobby/peer/phone-anna/event", #"{"ts": "2026-11-29T12:03:04.250Z", "peer": "phone-anna", "type": "zone_enter", "rule": "counter", "distance_m": 0.81, "reason": {"threshold_m": 1.0, "dwell_ms": 300}}"#)
        return model
    }

    /// A peer's direction and who measured it, in words: facing or not, the azimuth, the source.
    @Test func aPhonesDirectionReadsInWords() {
        var model = Self.lobby()
        let state = #"{"ts": "2026-11-29T12:03:04.000Z", "peer": "phone-anna", "link": "ranging", "distance_m": 0.91, "direction": "available", "direction_source": "phone", "azimuth_deg": 4.6, "elevation_deg": 1.0, "zones": [], "stage": "reach", "approaches": {}, "facing": true}"#
        _ = model.receive(topic: "uwb2mqtt/lobby/peer/phone-anna/state", payload: Array(state.utf8), retained: false, receivedAt: Self.now)
        let line = WatchScreen.lines(model, title: "", now: Self.now, width: 120, height: 24, color: false).first { $0.contains("phone-anna") }
        #expect(line?.hasSuffix("reach 75%  facing 5° phone") == true, "\(line ?? "")")
        let away = state.replacingOccurrences(of: "\"azimuth_deg\": 4.6", with: "\"azimuth_deg\": -40.2")
            .replacingOccurrences(of: "\"facing\": true", with: "\"facing\": false")
            .replacingOccurrences(of: "\"phone\", \"azimuth", with: "\"\\u001b[2J\", \"azimuth")
        _ = model.receive(topic: "uwb2mqtt/lobby/peer/phone-anna/state", payload: Array(away.utf8), retained: false, receivedAt: Self.now)
        let turned = WatchScreen.lines(model, title: "", now: Self.now, width: 120, height: 24, color: false).first { $0.contains("phone-anna") }
        #expect(turned?.hasSuffix("reach 75%  not facing -40° unknown") == true, "\(turned ?? "")")
    }

    @Test func aSmallSiteAt80x24() {
        let screen = WatchScreen.lines(Self.lobby(), title: "broker mqtt://127.0.0.1:1883: connected", now: Self.now, width: 80, height: 24, color: false)
        #expect(screen == [
            "uwb2mqtt watch  12:03:05 UTC  broker mqtt://127.0.0.1:1883: connected",
            "",
            "lobby  online  device ranging fw 1.1.0-rc0  20.0/s  dropped 0  rules ok 78e0d9fc",
            "  peer         link       distance  0     5.00 m   age  stage, zones, approaches",
            "  phone-anna   ranging      0.88 m  ██▏           0.4s  reach 75%  [counter]  h…",
            "✗ tool-cart    lost         3.06 m  ███████▍       15s  locate",
            "",
            "latest events",
            "12:02:51 lobby  tool-cart  signal_lost: measurement errors, last seen 12:02:50",
            "12:03:04 lobby  phone-anna  zone_enter counter at 0.81 m after 300 ms dwell (th…",
        ])
        #expect(screen.allSatisfy { $0.count <= 80 })
    }

    @Test func theBarGrowsWithDistanceOnOneScale() {
        var model = Self.lobby()
        // The farthest peer sets the scale once it is past 5 m: it fills the bar.
        _ = model.receive(topic: "uwb2mqtt/lobby/peer/tool-cart/range", payload: Array(#"{"ts": "2026-11-29T12:03:05.000Z", "status": "ok", "distance_m": 8.0}"#.utf8),
                          retained: false, receivedAt: Self.now)
        let screen = WatchScreen.lines(model, title: "", now: Self.now, width: 80, height: 24, color: false)
        #expect(screen[3].hasPrefix("  peer         link       distance  0     8.00 m"))
        #expect(screen[4].hasPrefix("  phone-anna   ranging      0.88 m  █▍            0.4s"))
        #expect(screen[5].hasPrefix("✗ tool-cart    lost         8.00 m  ████████████  0.0s"))
    }

    /// The rules' distances from the retained `rules` are ticks on the bars of the peers they
    /// apply to: ahead of the peer `│`, behind it `▓`.
    @Test func theRulesDistancesAreMarkedOnTheBarsTheyApplyTo() {
        var model = Self.lobby()
        let rules = #"{"ts": "2026-11-29T12:00:00.500Z", "ok": true, "sha256": "78e0d9fc0123456789", "error": null, "thresholds": ["#
            + #"{"rule": "counter", "kind": "enter", "distance_m": 1.0, "peers": ["*"]}, "#
            + #"{"rule": "reach", "kind": "stage", "distance_m": 0.5, "peers": ["*"]}, "#
            + #"{"rule": "handoff", "kind": "confirm", "distance_m": 4.0, "peers": ["phone-*"]}, "#
            + #"{"rule": "handoff", "kind": "cancel", "distance_m": 4.6, "peers": ["phone-*"]}, "#
            + #"{"rule": "dock", "kind": "enter", "distance_m": 2.5, "peers": ["0x0002"]}]}"#
        _ = model.receive(topic: "uwb2mqtt/lobby/rules", payload: Array(rules.utf8), retained: true, receivedAt: Self.now)
        _ = model.receive(topic: "uwb2mqtt/lobby/peer/tool-cart/range", payload: Array(#"{"ts": "2026-11-29T12:03:05.000Z", "peer": "tool-cart", "mac": "0x0002", "status": "ok", "distance_m": 3.06}"#.utf8),
                          retained: false, receivedAt: Self.now)
        #expect(model.gateways["lobby"]?.thresholds.count == 5)
        let screen = WatchScreen.lines(model, title: "", now: Self.now, width: 80, height: 24, color: false)
        // 12 cells of 5 m: 0.5 m is cell 1, 1.0 m cell 2, 2.5 m cell 6, 4.0 m cell 9 (not for the
        // cart). Anna's 0.88 m ends in cell 2 with an eighth block, which keeps its place.
        #expect(screen[4].hasPrefix("  phone-anna   ranging      0.88 m  █▓▏      │    0.4s"), "\(screen[4])")
        #expect(screen[5].hasPrefix("✗ tool-cart    lost         3.06 m  █▓▓███▓▍      0.0s"), "\(screen[5])")
    }

    @Test func thresholdsApplyByNameGlobAndAddress() {
        let glob = RuleThreshold(rule: "r", kind: "enter", metres: 1, peers: ["phone-?n*a"])
        #expect(glob.applies(to: "phone-anna", mac: nil) && !glob.applies(to: "phone-bob", mac: nil))
        let address = RuleThreshold(rule: "r", kind: "enter", metres: 1, peers: ["0x00AB"])
        #expect(address.applies(to: "cart", mac: "0x00ab") && !address.applies(to: "0x00AB", mac: nil))
        #expect(RuleThreshold(rule: "r", kind: "enter", metres: 1, peers: ["cart"]).applies(to: "cart", mac: "0x0001"))
        #expect(!RuleThreshold(rule: "r", kind: "enter", metres: 1, peers: []).applies(to: "cart", mac: nil))
    }

    @Test func aNarrowTerminalCutsLinesAndAShortOneKeepsTheNewestEvents() {
        let screen = WatchScreen.lines(Self.lobby(), title: "connected", now: Self.now, width: 40, height: 9, color: false)
        #expect(screen == [
            "uwb2mqtt watch  12:03:05 UTC  connected",
            "",
            "lobby  online  device ranging fw 1.1.0-…",
            "  peer         link       distance  0  …",
            "  phone-anna   ranging      0.88 m  ██▏…",
            "✗ tool-cart    lost         3.06 m  ███…",
            "",
            "latest events",
            "12:03:04 lobby  phone-anna  zone_enter …",
        ])
    }

    @Test func aFailedReloadAndADeviceErrorGetALineEach() {
        var model = WatchModel(base: "uwb2mqtt")
        _ = model.receive(topic: "uwb2mqtt/lobby/device", payload: Array(#"{"ts": "2026-11-29T12:00:01.000Z", "state": "error", "error": "no answer to CORE_GET_DEVICE_INFO"}"#.utf8), retained: true, receivedAt: Self.now)
        _ = model.receive(topic: "uwb2mqtt/lobby/rules", payload: Array(#"{"ts": "2026-11-29T12:00:02.000Z", "ok": false, "sha256": "78e0d9fc0123", "error": {"line": 4, "column": 7, "message": "enter_m must be a number"}}"#.utf8), retained: true, receivedAt: Self.now)
        #expect(WatchScreen.lines(model, title: "connected", now: Self.now, width: 80, height: 24, color: false) == [
            "uwb2mqtt watch  12:03:05 UTC  connected",
            "",
            "lobby  status ?  device error  rules FAILED 78e0d9fc",
            "  device error: no answer to CORE_GET_DEVICE_INFO",
            "  rules error: 4:7: enter_m must be a number; still running 78e0d9fc",
            "  no peers yet",
            "",
            "latest events",
            "none yet",
        ])
    }

    @Test func colourOnlyWhenAsked() {
        let plain = WatchScreen.lines(Self.lobby(), title: "", now: Self.now, width: 80, height: 24, color: false)
        let coloured = WatchScreen.lines(Self.lobby(), title: "", now: Self.now, width: 80, height: 24, color: true)
        #expect(!plain.joined().contains("\u{1B}"))
        #expect(coloured[2].hasPrefix("\u{1B}[1mlobby\u{1B}[0m  \u{1B}[32monline\u{1B}[0m  device \u{1B}[32mranging\u{1B}[0m"))
        // Without the escapes, the same text.
        #expect(coloured.map { $0.replacing(#/\x1B\[\d*m/#, with: "") } == plain)
    }

    @Test func rankingsFollowTheirGatewaysPeers() {
        var model = Self.lobby()
        _ = model.receive(topic: "uwb2mqtt/lobby/ranking/nearest", payload: Array(#"{"ts": "2026-11-29T12:03:04.000Z", "rule": "nearest", "peers": [{"peer": "phone-anna"}, {"peer": "tool-cart"}]}"#.utf8),
                          retained: true, receivedAt: Self.now)
        _ = model.receive(topic: "uwb2mqtt/lobby/ranking/handoff", payload: Array(#"{"ts": "2026-11-29T12:03:04.000Z", "rule": "handoff", "peers": []}"#.utf8),
                          retained: true, receivedAt: Self.now)
        let screen = WatchScreen.lines(model, title: "", now: Self.now, width: 80, height: 24, color: false)
        #expect(Array(screen[4...7]) == [
            "  phone-anna   ranging      0.88 m  ██▏           0.4s  reach 75%  [counter]  h…",
            "✗ tool-cart    lost         3.06 m  ███████▍       15s  locate",
            "  ranking handoff: nobody",
            "  ranking nearest: 1 phone-anna  2 tool-cart",
        ])
    }

    @Test func anUnreadableMessageIsALineUnderItsGateway() {
        var model = Self.lobby()
        func feed(_ topic: String, _ payload: String) {
            _ = model.receive(topic: "uwb2mqtt/" + topic, payload: Array(payload.utf8), retained: false, receivedAt: Self.now)
        }
        feed("lobby/device", #"{"state": "ranging""#)
        var screen = WatchScreen.lines(model, title: "", now: Self.now, width: 80, height: 24, color: false)
        #expect(Array(screen[2...4]) == [
            "lobby  online  device ranging fw 1.1.0-rc0  20.0/s  dropped 0  rules ok 78e0d9fc",
            #"  ! unreadable: 12:03:05 device: not a JSON object: {"state": "ranging""#,
            "  peer         link       distance  0     5.00 m   age  stage, zones, approaches",
        ])
        feed("lobby/peer/phone-anna/event", #"{"ts": "2026-11-29T12:03:05.000Z", "type": "teleported", "peer": "phone-anna"}"#)
        // A gateway nobody has seen before, which only ever sent garbage, still gets its header.
        feed("attic/status", "\u{1}garbage")
        screen = WatchScreen.lines(model, title: "", now: Self.now, width: 80, height: 24, color: false)
        #expect(screen.contains(#"  ! unreadable (2, the newest): 12:03:05 peer/phone-anna/event: unknown event t…"#))
        #expect(screen.contains("attic  status ?  device ?  rules ?"))
        #expect(screen.contains("  ! unreadable: 12:03:05 status: not a JSON object: ?garbage"))
        // What was known stays: the device is still ranging.
        #expect(screen.contains { $0.hasPrefix("lobby  online  device ranging") })
    }

    @Test func gatewayLinesThatDoNotFitScroll() {
        func frame(_ scroll: Int) -> WatchFrame {
            WatchScreen.frame(Self.lobby(), title: "", now: Self.now, width: 80, height: 5, color: false, scroll: scroll)
        }
        #expect(frame(0) == WatchFrame(lines: [
            "uwb2mqtt watch  12:03:05 UTC  ",
            "",
            "lobby  online  device ranging fw 1.1.0-rc0  20.0/s  dropped 0  rules ok 78e0d9fc",
            "  peer         link       distance  0     5.00 m   age  stage, zones, approaches",
            "… 2 lines more below: ↓ PgDn to scroll",
        ], scroll: 0, page: 3))
        #expect(frame(1).lines == [
            "uwb2mqtt watch  12:03:05 UTC  ",
            "lobby  online  device ranging fw 1.1.0-rc0  20.0/s  dropped 0  rules ok 78e0d9fc",
            "  peer         link       distance  0     5.00 m   age  stage, zones, approaches",
            "  phone-anna   ranging      0.88 m  ██▏           0.4s  reach 75%  [counter]  h…",
            "… 1 line more below, 1 above: ↑ PgUp ↓ PgDn to scroll",
        ])
        // Past the end is the end: the title stays, the last rows show.
        let end = frame(99)
        #expect(end.scroll == 2)
        #expect(end.lines == [
            "uwb2mqtt watch  12:03:05 UTC  ",
            "  peer         link       distance  0     5.00 m   age  stage, zones, approaches",
            "  phone-anna   ranging      0.88 m  ██▏           0.4s  reach 75%  [counter]  h…",
            "✗ tool-cart    lost         3.06 m  ███████▍       15s  locate",
            "… 2 lines above: ↑ PgUp to scroll",
        ])
        #expect(frame(-5).scroll == 0)
    }

    @Test func wideNamesKeepTheColumnsAligned() {
        var model = Self.lobby()
        _ = model.receive(topic: "uwb2mqtt/lobby/peer/uketsuke/state", payload: Array(#"{"ts": "2026-11-29T12:03:04.000Z", "peer": "受付カート", "link": "ranging", "distance_m": 2.0, "zones": ["受付"], "stage": "point"}"#.utf8),
                          retained: true, receivedAt: Self.now)
        _ = model.receive(topic: "uwb2mqtt/lobby/peer/long/state", payload: Array(#"{"ts": "2026-11-29T12:03:04.000Z", "peer": "受付カウンター前", "link": "ranging", "distance_m": 1.0, "zones": [], "stage": "point"}"#.utf8),
                          retained: true, receivedAt: Self.now)
        let screen = WatchScreen.lines(model, title: "", now: Self.now, width: 80, height: 24, color: false)
        // Ten columns of name and two of padding; a name wider than 12 columns is cut at 11 with `…`,
        // never inside a character; the line is cut at 80 columns, not 80 characters.
        #expect(screen.contains("  受付カート   ranging      2.00 m  ████▊         1.0s  point  [受付]"))
        // 受付カウン is 10 columns: the next character would pass 11, so the cut name is padded by one.
        #expect(screen.contains("  受付カウン…  ranging      1.00 m  ██▍           1.0s  point"))
        #expect(screen.allSatisfy { DisplayWidth.columns($0) <= 80 })
        let narrow = WatchScreen.lines(model, title: "", now: Self.now, width: 21, height: 24, color: false)
        #expect(narrow.contains("  受付カート   rangi…"))
        #expect(narrow.contains("  受付カウン…  rangi…"))
        // A cut that falls inside a wide character leaves the column empty rather than half a character.
        #expect(WatchScreen.lines(model, title: "", now: Self.now, width: 6, height: 24, color: false).contains("  受…"))
    }
}
