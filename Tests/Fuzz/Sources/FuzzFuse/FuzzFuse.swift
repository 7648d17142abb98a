// libFuzzer entry for the fuse's message handling (FuseCore, as `uwb2mqtt fuse` runs it): the
// input is messages separated by NUL bytes, each a topic, a newline, then the payload, received
// 50 ms apart by a core that holds site lobby and knows four placed gateways. After the last
// message time runs on from deadline to deadline (`nextWake`) until every peer is forgotten.
// Never a trap; every message published is on the site's tree, a JSON object (or an empty
// retained `state`, a forgotten peer's), every position has finite coordinates; no log line
// holds a line break; and every tick leaves the next wake-up after it, so the service's timer
// cannot spin.
import Fuse
import SiteFusion
import Vocabulary

/// Seconds since the epoch at the first message: 2027-01-15T08:00:00Z (the seeds' `ts`).
private let start = 1_800_000_000.0

private let configuration = FuseConfiguration(
    site: "lobby", tagHeight: 1, positionLostAfter: TimeSpan(seconds: 1), forgetAfter: TimeSpan(seconds: 3),
    zones: [FuseZone(name: "checkout", polygon: [PlanarPoint(x: 0, y: 0), PlanarPoint(x: 2, y: 0), PlanarPoint(x: 2, y: 1.5), PlanarPoint(x: 0, y: 1.5)],
                     hysteresis: 0.1, dwell: TimeSpan(seconds: 0.2))])

private let gateways: [(String, Double, Double)] = [("gw-a", 0, 0), ("gw-b", 6, 0), ("gw-c", 6, 6), ("gw-d", 0, 6)]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFuse(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    var core = FuseCore(configuration: configuration, instanceID: "f0f0")
    var now = start - 2
    check(core.connected(at: now), core)
    now = start - 0.5
    check(core.tick(at: now), core)
    guard core.active else { fatalError("the only instance does not hold the site") }
    for (id, x, y) in gateways {
        let status = #"{"state": "online", "position": {"x": \#(x), "y": \#(y), "z": 2.5}, "ranging_interval_ms": 100}"#
        check(core.receive(topic: "uwb2mqtt/\(id)/status", payload: Array(status.utf8), at: now), core)
    }
    now = start
    for record in bytes.split(separator: 0, omittingEmptySubsequences: false) {
        let newline = record.firstIndex(of: 0x0A) ?? record.endIndex
        let topic = String(decoding: record[..<newline], as: UTF8.self)
        let payload = newline < record.endIndex ? record[(newline + 1)...] : []
        check(core.receive(topic: topic, payload: payload, at: now), core)
        if let wake = core.nextWake, wake <= now { tick(&core, at: now) }
        now += 0.05
    }
    // Silence: deadline after deadline until nothing is left to do.
    var ticks = 0
    while let wake = core.nextWake {
        now = max(now, wake)
        tick(&core, at: now)
        ticks += 1
        if ticks > 1_000_000 { fatalError("no end to the deadlines") }
    }
    guard core.tracker.peerCount == 0 else { fatalError("\(core.tracker.peerCount) peers left after silence") }
    return 0
}

private func tick(_ core: inout FuseCore, at time: Double) {
    check(core.tick(at: time), core)
    if let next = core.nextWake, next <= time { fatalError("a tick at \(time) left a wake-up at \(next)") }
}

private func check(_ actions: [FuseAction], _ core: FuseCore) {
    for action in actions {
        switch action {
        case let .log(_, line):
            if line.contains(where: { $0.isNewline }) { fatalError("a line break in a log line: \(line)") }
        case let .publish(topic, payload, _, retain):
            guard topic.hasPrefix(core.siteRoot + "/") else { fatalError("outside the site's tree: \(topic)") }
            if payload.isEmpty {
                guard retain, topic.hasSuffix("/state") else { fatalError("an empty message on \(topic)") }
                continue
            }
            guard let object = try? JSONReader.value(payload), object.isObject else {
                fatalError("not a JSON object on \(topic): \(String(decoding: payload, as: UTF8.self))")
            }
            if topic.hasSuffix("/position") {
                for key in ["x", "y", "z", "accuracy_m"] where !(object[key]?.number?.isFinite ?? false) {
                    fatalError("a position without a finite \(key): \(object.json)")
                }
            }
        }
    }
}
