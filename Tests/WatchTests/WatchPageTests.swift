import Foundation
import Testing
import Watch

/// The page of `watch --http` as data: the parts a model makes, and the frames of what changed.
@Suite struct WatchPageTests {
    func model(peer: String = "phone-anna", distance: Double = 0.91) -> WatchModel {
        var model = WatchModel()
        _ = model.receive(topic: "uwb2mqtt/lobby/status", payload: Array(#"{"state": "online", "version": "1.0"}"#.utf8), retained: true, receivedAt: 0)
        _ = model.receive(topic: "uwb2mqtt/lobby/peer/anna/state",
                          payload: Array(#"{"ts": "2026-11-29T12:03:04.000Z", "peer": "\#(peer)", "link": "ranging", "distance_m": \#(distance), "zones": ["counter"]}"#.utf8),
                          retained: true, receivedAt: 0)
        return model
    }

    func object(_ bytes: [UInt8]) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
    }

    @Test func aModelIsThePagePartsInOrder() {
        let parts = WatchPageParts.parts(model(), title: "broker: connected", now: 1_796_400_000)
        #expect(parts.map(\.key) == ["page", "g\u{1F}lobby", "p\u{1F}lobby\u{1F}anna", "d\u{1F}lobby\u{1F}anna", "events"])
        let peer = object(parts[2].value), measurement = object(parts[3].value)
        #expect(peer["name"] as? String == "phone-anna")
        #expect(peer["zones"] as? [String] == ["counter"])
        #expect(measurement["distance_text"] as? String == "0.91 m")
        #expect(measurement["measured"] as? Double == 1_795_953_784)
    }

    /// A name written as markup is a JSON string like any other: the page sets it as text.
    @Test func aHostileNameIsOnlyAString() {
        let hostile = "<img src=x onerror=alert(1)></script><b>"
        let parts = WatchPageParts.parts(model(peer: hostile), title: "", now: 0)
        #expect(object(parts[2].value)["name"] as? String == hostile)
    }

    @Test func framesCarryOnlyWhatChangedAndWhatWent() throws {
        var frames = WatchPageFrames()
        let firstFrame = frames.next(WatchPageParts.parts(model(), title: "t", now: 1))
        let first = try #require(firstFrame)
        #expect(object(first)["reset"] as? Bool == false)
        #expect((object(first)["set"] as? [String: Any])?.count == 5)
        // Only the clock and the peer's distance moved: its row is not sent again.
        let movedFrame = frames.next(WatchPageParts.parts(model(distance: 0.85), title: "t", now: 2))
        let moved = try #require(movedFrame)
        #expect(Set((object(moved)["set"] as? [String: Any] ?? [:]).keys) == ["page", "d\u{1F}lobby\u{1F}anna"])
        // Nothing at all: no frame.
        #expect(frames.next(WatchPageParts.parts(model(distance: 0.85), title: "t", now: 2)) == nil)
        // The peer's state cleared: its key goes.
        var cleared = model(distance: 0.85)
        _ = cleared.receive(topic: "uwb2mqtt/lobby/peer/anna/state", payload: [], retained: true, receivedAt: 0)
        let goneFrame = frames.next(WatchPageParts.parts(cleared, title: "t", now: 2))
        let gone = try #require(goneFrame)
        #expect(object(gone)["del"] as? [String] == ["p\u{1F}lobby\u{1F}anna", "d\u{1F}lobby\u{1F}anna"])
        // A new browser gets everything there is, and is told to forget what it had.
        let snapshot = object(frames.snapshot)
        #expect(snapshot["reset"] as? Bool == true)
        #expect(Set((snapshot["set"] as? [String: Any] ?? [:]).keys) == ["page", "g\u{1F}lobby", "events"])
    }

    @Test func aNumberThatIsNotFiniteIsNoNumber() {
        var model = WatchModel(site: SiteView(name: "lobby", zones: [SiteZone(name: "z", polygon: [MapPoint(x: .infinity, y: 0)])]))
        _ = model.receive(topic: "uwb2mqtt/lobby/status", payload: Array(#"{"state": "online"}"#.utf8), retained: true, receivedAt: 0)
        let site = WatchPageParts.parts(model, title: "", now: 0).first { $0.key == "site" }
        #expect(site.map { object($0.value).isEmpty } == false, "valid JSON, infinity written as null")
    }

    @Test func thePageFilesAreServedAtTheirPaths() {
        #expect(WatchPageFiles.all.map(\.path) == ["/", "/watch.css", "/watch.js"])
        let script = String(decoding: WatchPageFiles.all[2].bytes, as: UTF8.self)
        // Text from payloads never becomes markup.
        for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("] { #expect(!script.contains(sink), "\(sink)") }
        let page = String(decoding: WatchPageFiles.all[0].bytes, as: UTF8.self)
        #expect(page.contains(#"<script src="/watch.js" defer></script>"#))
        #expect(!page.contains(#"src="http"#) && !page.contains(#"href="http"#), "nothing from elsewhere")
    }
}
