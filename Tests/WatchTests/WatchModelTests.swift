import Testing
@testable import Watch

/// The model fed the payloads of README's MQTT section, read back as the lines `watch --plain`
/// prints for them.
@Suite struct WatchModelTests {
    /// 2026-11-30T18:30:00Z, for messages without `ts`.
    static let arrival = 1_796_063_400.0

    struct Feed {
        var model = WatchModel(base: "uwb2mqtt", eventLimit: 3)

        /// The plain lines for one message on `uwb2mqtt/<topic>`.
        mutating func lines(_ topic: String, _ payload: String, retained: Bool = false) -> [String] {
            model.receive(topic: "uwb2mqtt/" + topic, payload: Array(payload.utf8), retained: retained, receivedAt: arrival)
                .map(PlainLine.text)
        }
    }

    @Test func theGatewaysRetainedTopicsReadAsItsHeader() {
        var feed = Feed()
        #expect(feed.lines("lobby/status", #"{"state": "online", "ts": "2026-11-29T20:25:26.406Z", "version": "0.1.0", "position": null, "heading_deg": 90.0}"#, retained: true)
            == ["20:25:26 lobby  gateway online (uwb2mqtt 0.1.0)"])
        #expect(feed.lines("lobby/device", #"{"ts": "2026-11-29T20:25:27.001Z", "state": "ranging", "port": "/dev/dwm3001c", "uci_version": "2.0.0", "firmware": "1.1.0-rc0", "capabilities": {"aoa": false}, "error": null}"#)
            == ["20:25:27 lobby  device ranging (firmware 1.1.0-rc0)"])
        #expect(feed.lines("lobby/rules", #"{"ts": "2026-11-29T20:25:26.500Z", "ok": true, "source": "/etc/uwb2mqtt/rules.yaml", "sha256": "78e0d9fc0123456789", "error": null, "warnings": []}"#)
            == ["20:25:26 lobby  rules ok (sha256 78e0d9fc0123)"])
        let header = feed.model.gateways["lobby"]
        #expect(header?.status == "online" && header?.deviceState == "ranging" && header?.firmware == "1.1.0-rc0" && header?.rulesOK == true)
    }

    @Test func aRepeatedRetainedMessageIsNoNewLine() {
        var feed = Feed()
        let device = #"{"ts": "2026-11-29T20:25:27.001Z", "state": "ranging", "firmware": "1.1.0-rc0", "error": null}"#
        #expect(feed.lines("lobby/device", device, retained: true).count == 1)
        #expect(feed.lines("lobby/device", device, retained: true).isEmpty)
    }

    @Test func theLastWillIsDatedByItsArrival() {
        var feed = Feed()
        #expect(feed.lines("lobby/status", #"{"state":"offline"}"#, retained: true) == ["18:30:00 lobby  gateway offline"])
    }

    @Test func aDeviceErrorAndAFailedReloadSayWhy() {
        var feed = Feed()
        #expect(feed.lines("lobby/device", #"{"ts": "2026-11-29T20:25:27.001Z", "state": "error", "error": "SESSION_SET_APP_CONFIG refused CHANNEL_NUMBER"}"#)
            == ["20:25:27 lobby  device error: SESSION_SET_APP_CONFIG refused CHANNEL_NUMBER"])
        #expect(feed.lines("lobby/rules", #"{"ts": "2026-11-29T20:26:00.000Z", "ok": false, "source": "r.yaml", "sha256": "78e0d9fc0123456789", "error": {"line": 4, "column": 7, "message": "enter_m must be a number"}, "warnings": []}"#)
            == ["20:26:00 lobby  rules FAILED: 4:7: enter_m must be a number; still running 78e0d9fc0123"])
    }

    /// Anyone on the broker names states and writes errors: an escape sequence, a carriage
    /// return or a line break in them is shown, never obeyed (a terminal's screen cleared, its
    /// title set, a line of watch's forged).
    @Test func terminalControlsInPayloadsAreShownNotObeyed() {
        var feed = Feed()
        let lines = feed.lines("evil/device", #"{"state": "ranging\u001b[31mRED", "error": "\r\nFAKE 12:00:00 demo gateway offline\u009b31m\u202e"}"#)
        #expect(lines == [#"18:30:00 evil  device ranging\u{1b}[31mRED: \u{d}\u{a}FAKE 12:00:00 demo gateway offline\u{9b}31m\u{202e}"#], "\(lines)")
        #expect(!lines.joined().unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x9b })
    }

    /// Gateways and peers made up on the broker by the ten thousand were each kept and drawn at
    /// every frame: past the bounds they are not followed, and those known go on.
    @Test func madeUpGatewaysAndPeersStopAtTheirBounds() {
        var feed = Feed()
        for n in 0..<(WatchModel.maximumGateways + 5) {
            _ = feed.lines("gw\(n)/status", #"{"state": "online"}"#)
        }
        #expect(feed.model.gateways.count == WatchModel.maximumGateways)
        for n in 0..<(WatchModel.maximumPeersPerGateway + 5) {
            _ = feed.lines("gw0/peer/p\(n)/state", #"{"link": "ranging"}"#)
        }
        #expect(feed.model.gateways["gw0"]?.peers.count == WatchModel.maximumPeersPerGateway)
        _ = feed.lines("gw0/peer/p0/state", #"{"link": "lost"}"#)
        #expect(feed.model.gateways["gw0"]?.peers["p0"]?.link == "lost")
    }

    @Test func eventsReadWithTheirReasonInWords() {
        var feed = Feed()
        #expect(feed.lines("lobby/peer/phone-anna/event", #"{"id": "lobby:5f3a9c2e:4", "ts": "2026-11-29T12:03:04.250Z", "peer": "phone-anna", "type": "zone_enter", "rule": "counter", "from": "outside", "to": "inside", "distance_m": 0.81, "reason": {"threshold_m": 1.0, "dwell_ms": 300, "crossed_at": "2026-11-29T12:03:03.950Z"}, "cue": null}"#)
            == ["12:03:04 lobby  phone-anna  zone_enter counter at 0.81 m after 300 ms dwell (threshold 1.0 m)"])
        #expect(feed.lines("lobby/peer/phone-anna/event", #"{"id": "lobby:5f3a9c2e:5", "ts": "2026-11-29T12:03:05.000Z", "peer": "phone-anna", "type": "stage_change", "rule": "handoff", "from": "approach", "to": "reach", "distance_m": 0.5, "reason": {"threshold_m": 0.6, "dwell_ms": 0}, "cue": null}"#)
            == ["12:03:05 lobby  phone-anna  stage_change handoff approach → reach at 0.50 m (threshold 0.6 m)"])
        #expect(feed.lines("lobby/peer/tool-cart/event", #"{"id": "lobby:5f3a9c2e:1", "ts": "2026-11-29T12:02:00.000Z", "peer": "tool-cart", "type": "stage_change", "rule": null, "from": null, "to": "locate", "distance_m": 3.06, "reason": {}, "cue": null}"#)
            == ["12:02:00 lobby  tool-cart  stage_change none → locate at 3.06 m"])
        #expect(feed.lines("lobby/peer/phone-anna/event", #"{"id": "lobby:5f3a9c2e:6", "ts": "2026-11-29T12:03:09.000Z", "peer": "phone-anna", "type": "signal_lost", "rule": null, "from": "ranging", "to": "lost", "distance_m": null, "reason": {"cause": "measurement_errors", "last_seen": "2026-11-29T12:03:07.100Z"}, "cue": null}"#)
            == ["12:03:09 lobby  phone-anna  signal_lost: measurement errors, last seen 12:03:07"])
    }

    @Test func theEventListKeepsOnlyTheLatest() {
        var feed = Feed()
        for n in 1...5 {
            _ = feed.lines("lobby/peer/cart-\(n)/event", #"{"ts": "2026-11-29T12:03:0\#(n).000Z", "peer": "cart-\#(n)", "type": "signal_regained", "reason": {}}"#)
        }
        #expect(feed.model.events.map(\.peer) == ["cart-3", "cart-4", "cart-5"])
    }

    @Test func aPeerRowFollowsStateRangeAndFeedback() {
        var feed = Feed()
        #expect(feed.lines("lobby/peer/phone-anna/state", #"{"ts": "2026-11-29T12:03:04.000Z", "peer": "phone-anna", "link": "ranging", "distance_m": 0.91, "direction": "unavailable", "azimuth_deg": null, "elevation_deg": null, "zones": ["counter"], "stage": "reach", "approaches": {"handoff": {"phase": "idle", "progress": 0.0}}, "facing": null}"#, retained: true)
            == ["12:03:04 lobby  phone-anna  ranging at 0.91 m, in counter, stage reach"])
        #expect(feed.lines("lobby/peer/phone-anna/range", #"{"ts": "2026-11-29T12:03:04.100Z", "peer": "phone-anna", "mac": "0x0001", "session": 42, "seq": 17, "status": "ok", "distance_m": 0.88, "raw_distance_m": 0.87, "nlos": false}"#).isEmpty)
        #expect(feed.lines("lobby/peer/phone-anna/range", #"{"ts": "2026-11-29T12:03:04.200Z", "peer": "phone-anna", "status": "RANGING_RX_TIMEOUT", "distance_m": null}"#).isEmpty)
        #expect(feed.lines("lobby/peer/phone-anna/feedback", #"{"ts": "2026-11-29T12:03:04.100Z", "peer": "phone-anna", "stage": "reach", "attributes": {}, "progress": 0.75, "facing": null, "cue": null}"#).isEmpty)
        let row = feed.model.gateways["lobby"]?.peers["phone-anna"]
        #expect(row?.distance == 0.88 && row?.lastMeasurement == "2026-11-29T12:03:04.100Z" && row?.progress == 0.75)
        #expect(row?.approaches.map { "\($0.rule) \($0.phase) \($0.progress ?? -1)" } == ["handoff idle 0.0"])
        #expect(feed.lines("lobby/peer/phone-anna/state", "", retained: true) == ["18:30:00 lobby  phone-anna  removed from the gateway's config"])
        #expect(feed.model.gateways["lobby"]?.peers.isEmpty == true)
    }

    /// Facing's events carry true, false or null where the others carry names; phones' reports
    /// are what phones tell the gateway, not its state: neither is an unreadable message.
    @Test func facingEventsAndPhonesReports() {
        var feed = Feed()
        #expect(feed.lines("lobby/peer/iphone-eve/event", #"{"id": "lobby:1:9", "ts": "2026-11-29T12:03:04.000Z", "peer": "iphone-eve", "type": "facing_gained", "rule": null, "from": null, "to": true, "distance_m": 6.01, "reason": {"tolerance_deg": 35, "azimuth_deg": 27.5}, "cue": {"sound": "direction-lock"}}"#)
            == ["12:03:04 lobby  iphone-eve  facing_gained at 6.01 m"])
        #expect(feed.lines("lobby/peer/iphone-eve/event", #"{"ts": "2026-11-29T12:03:09.000Z", "peer": "iphone-eve", "type": "facing_lost", "from": true, "to": false, "distance_m": 0.4, "reason": {}}"#)
            == ["12:03:09 lobby  iphone-eve  facing_lost at 0.40 m"])
        #expect(feed.model.events.last?.from == "true" && feed.model.events.last?.to == "false")
        #expect(feed.lines("lobby/phone/iphone-eve/report", #"{"token": "00112233445566778899aabbccddeeff", "ts": "2026-11-29T12:03:09.100Z", "azimuth_deg": 3}"#).isEmpty)
    }

    @Test func rankingsAndMetrics() {
        var feed = Feed()
        #expect(feed.lines("lobby/ranking/nearest", #"{"ts": "2026-11-29T12:03:04.000Z", "rule": "nearest", "peers": [{"peer": "phone-anna", "score": 0.9, "distance_m": 0.9, "facing": null}, {"peer": "tool-cart", "score": 0.3, "distance_m": 3.0, "facing": null}]}"#)
            == ["12:03:04 lobby  ranking nearest: phone-anna, tool-cart"])
        #expect(feed.lines("lobby/metrics", #"{"ts": "2026-11-29T12:03:30.000Z", "uptime_s": 30, "frames_rx": 302, "frames_invalid": 0, "measurements": 300, "events": 0, "publish_queue": 0, "spooled": 0, "dropped": 0, "device_reconnects": 0, "broker_reconnects": 0}"#).isEmpty)
        #expect(feed.lines("lobby/metrics", #"{"ts": "2026-11-29T12:04:00.000Z", "uptime_s": 60, "measurements": 900, "dropped": 12}"#)
            == ["12:04:00 lobby  dropped 12 live messages since start (broker unreachable or too slow)"])
        #expect(feed.model.gateways["lobby"]?.measurementRate == 20)
    }

    @Test func badInputIsANoteNeverACrash() {
        var feed = Feed()
        #expect(feed.lines("lobby/device", "{\"state\": \"ranging\"") == [#"18:30:00 lobby  device: not a JSON object: {"state": "ranging""#])
        #expect(feed.lines("lobby/status", "[1, 2]") == ["18:30:00 lobby  status: not a JSON object: [1, 2]"])
        #expect(feed.lines("lobby/device", "\u{1}\u{2}garbage") == ["18:30:00 lobby  device: not a JSON object: ??garbage"])
        #expect(feed.lines("lobby/peer/phone-anna/event", #"{"ts": "2026-11-29T12:03:04.000Z", "type": "teleported", "peer": "phone-anna"}"#)
            == [#"12:03:04 lobby  peer/phone-anna/event: unknown event type "teleported""#])
        #expect(feed.lines("lobby/peer/phone-anna/state", #"{"ts": "2026-11-29T12:03:04.000Z", "link": 3}"#)
            == [#"12:03:04 lobby  peer/phone-anna/state: "link" is not a string: {"ts": "2026-11-29T12:03:04.000Z", "link": 3}"#])
        #expect(feed.lines("lobby/telemetry", #"{"ts": "2026-11-29T12:03:04.000Z"}"#) == ["12:03:04 lobby  telemetry: not a topic of the v1 tree"])
        #expect(feed.model.gateways["lobby"]?.deviceState == nil)
    }

    /// Numbers another client can publish, each of which trapped a conversion to `Int` or a
    /// loop: the message is a note naming the field and its bounds, and nothing known changes.
    @Test func wildNumbersAreNotesAndChangeNothing() {
        var feed = Feed()
        _ = feed.lines("lobby/metrics", #"{"ts": "2026-11-29T12:03:30.000Z", "uptime_s": 30, "measurements": 300, "dropped": 2}"#)
        #expect(feed.lines("lobby/metrics", #"{"ts": "2026-11-29T12:04:00.000Z", "uptime_s": 60, "measurements": 900, "dropped": 1e300}"#)
            == [#"12:04:00 lobby  metrics: "dropped" is outside 0…1000000000000000: {"ts": "2026-11-29T12:04:00.000Z", "uptime_s": 60, "measurem…"#])
        #expect(feed.model.gateways["lobby"]?.dropped == 2 && feed.model.gateways["lobby"]?.measurementRate == 10)
        #expect(feed.lines("lobby/rules", #"{"ts": "2026-11-29T12:03:04.000Z", "ok": false, "error": {"line": 1e300, "column": 2, "message": "x"}}"#)
            .first?.contains(#""error.line" is outside"#) == true)
        #expect(feed.model.gateways["lobby"]?.rulesOK == nil)
        #expect(feed.lines("lobby/peer/cart/event", #"{"ts": "2026-11-29T12:03:04.000Z", "type": "zone_enter", "reason": {"dwell_ms": -1e300}}"#)
            .first?.contains(#""reason.dwell_ms" is outside"#) == true)
        #expect(feed.model.events.isEmpty)
        #expect(feed.lines("lobby/peer/cart/state", #"{"ts": "2026-11-29T12:03:04.000Z", "link": "ranging", "distance_m": 1e308}"#)
            .first?.contains(#""distance_m" is outside -1000…100000 m"#) == true)
        #expect(feed.model.gateways["lobby"]?.peers["cart"] == nil)
        #expect(feed.lines("lobby/status", #"{"state": "online", "position": {"x": 1e308, "y": 0}}"#).first?.contains(#""position.x" is outside"#) == true)
        #expect(feed.model.gateways["lobby"]?.status == nil && feed.model.gateways["lobby"]?.position == nil)
        // A `ts` with a thousand fraction digits is shown by its clock, not summed into an overflow.
        let ts = "2026-11-29T12:03:04." + String(repeating: "9", count: 1000) + "Z"
        _ = feed.lines("lobby/peer/cart/state", #"{"ts": "\#(ts)", "link": "ranging", "distance_m": 1.5}"#)
        #expect(WatchScreen.age(ts, now: 1_764_417_790) != "")
    }

    @Test func conversationsAndTheFuseTreeAreNotGateways() {
        var feed = Feed()
        #expect(feed.lines("lobby/response/ping", #"{"id": "1", "ok": true}"#).isEmpty)
        #expect(feed.lines("site/hall/status", #"{"state": "online"}"#).isEmpty)
        #expect(feed.model.gateways["site"] == nil)
    }
}
