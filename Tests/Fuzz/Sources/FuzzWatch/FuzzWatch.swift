// libFuzzer entry for what `uwb2mqtt watch` reads: the input is messages separated by 0x1E, each
// a topic under `uwb2mqtt/` up to its first newline and the payload after it. They go into a
// model that already follows a site of three placed gateways and a tag, and every change is
// drawn: the plain lines, the view with its site map at two sizes, and the page of `watch --http`
// (its parts and frames), whose every frame must be JSON. Whatever another client publishes is a
// note or a change, never a trap or a loop.
import Vocabulary
import Watch

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWatch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    var model = WatchModel(site: SiteView(name: "lobby"))
    for (id, x, y) in [("gw-a", 0, 0), ("gw-b", 6, 0), ("gw-c", 6, 4)] {
        _ = model.receive(topic: "uwb2mqtt/\(id)/status",
                          payload: Array(#"{"state": "online", "ts": "2026-11-29T12:00:00.000Z", "position": {"x": \#(x), "y": \#(y), "z": 2.5}}"#.utf8),
                          retained: true, receivedAt: 1_764_417_600)
    }
    _ = model.receive(topic: "uwb2mqtt/site/lobby/peer/cart/state",
                      payload: Array(#"{"ts": "2026-11-29T12:03:04.000Z", "peer": "cart", "position": {"x": 4.9, "y": 2.3, "z": 1.0, "accuracy_m": 0.05}, "zones": [], "gateways_in_range": 3}"#.utf8),
                      retained: true, receivedAt: 1_764_417_784)
    for message in bytes.split(separator: 0x1E, omittingEmptySubsequences: false) {
        let split = message.firstIndex(of: 0x0A) ?? message.endIndex
        let topic = "uwb2mqtt/" + String(decoding: message[message.startIndex..<split], as: UTF8.self)
        let payload = split < message.endIndex ? Array(message[(split + 1)...]) : []
        for change in model.receive(topic: topic, payload: payload, retained: false, receivedAt: 1_764_417_790) {
            _ = PlainLine.text(change)
        }
    }
    _ = WatchScreen.lines(model, title: "uwb2mqtt watch", now: 1_764_417_790, width: 80, height: 24, color: true)
    _ = WatchScreen.lines(model, title: "uwb2mqtt watch", now: 1_764_417_790, width: 120, height: 50, color: false)
    var parts = WatchPageParts()
    var frames = WatchPageFrames()
    for frame in [frames.next(parts.render(model, title: "uwb2mqtt watch", now: 1_764_417_790)), frames.snapshot] {
        guard let frame else { continue }
        do { _ = try JSONReader.value(frame) } catch { fatalError("a frame of the page is not JSON: \(error)") }
    }
    return 0
}
