import Testing
@testable import Gateway
import Proximity
import UCI
import Vocabulary
import RulesReading

/// The exact bytes of the payloads the agent publishes for every measurement (`range`, and
/// `feedback` while a peer is in a stage): subscribers parse them, and the hot path that renders
/// them is tuned for allocations, so any change of a byte must be deliberate.
@Suite struct PayloadBytesTests {
    static let ts = 1_795_977_000.123

    @Test mutating func rangePayloadBytes() {
        let m = TwoWayRangingMeasurement(macAddress: .short(0x0A01), nlosRaw: 1, distanceRaw: 153,
                                         aoaAzimuth: Q9_7Angle(raw: -1234), aoaAzimuthFOM: 87,
                                         aoaElevation: Q9_7Angle(raw: 321), aoaElevationFOM: 0, rssiRaw: 161)
        let payload = rangePayload(m, filtered: 1.52349, angles: (m.aoaAzimuth.degrees, nil))
        #expect(String(decoding: payload, as: UTF8.self) == #"""
            {"ts": "2026-11-29T18:30:00.123Z", "peer": "tool-cart", "mac": "0A:01", "session": 4294967295, "seq": 0, "status": "ok", "distance_m": 1.523, "raw_distance_m": 1.53, "nlos": true, "azimuth_deg": -9.640625, "elevation_deg": null, "azimuth_fom": 87, "elevation_fom": null, "rssi_dbm": -80.5}
            """#)
        let failed = TwoWayRangingMeasurement(macAddress: .short(0x0A01), status: .rangingRxTimeout, nlosRaw: 0xFF, distanceRaw: 0xFFFF)
        #expect(String(decoding: rangePayload(failed, filtered: nil, angles: (nil, nil), sequence: 123_456), as: UTF8.self) == #"""
            {"ts": "2026-11-29T18:30:00.123Z", "peer": "tool-cart", "mac": "0A:01", "session": 4294967295, "seq": 123456, "status": "RANGING_RX_TIMEOUT", "distance_m": null, "raw_distance_m": null, "nlos": null, "azimuth_deg": null, "elevation_deg": null, "azimuth_fom": null, "elevation_fom": null, "rssi_dbm": null}
            """#)
    }

    @Test mutating func feedbackPayloadBytes() throws {
        let rules = try RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml")
        let phone = PeerIdentity(address: .short(0x0B01), name: "phone-anna")
        var engine = ProximityEngine(rules: rules, peers: [phone], deviceHasAoA: true)
        let sample = RangingSample(distanceMeters: 0.5, azimuthDeg: 3.25, azimuthFOM: 90, elevationDeg: nil, elevationFOM: 0)
        let outputs = engine.ingest(peer: phone, sample: sample, at: Self.ts)
        let feedback = try #require(outputs.lazy.compactMap { if case let .feedback(f) = $0 { f } else { nil } }.first)
        #expect(String(decoding: feedbackPayload(feedback), as: UTF8.self) == #"""
            {"ts": "2026-11-29T18:30:00.123Z", "peer": "phone-anna", "stage": "reach", "attributes": {"facing_tolerance_deg": 15, "shows_distance": false}, "progress": 0.2083333333333333, "facing": true, "direction_source": "gateway", "cue": {"haptic": "pulse"}}
            """#)
    }

    /// Without a direction (a device without angle of arrival): `facing`, `direction_source` and
    /// `cue` are null, written as one run of members rendered once.
    @Test mutating func feedbackPayloadBytesWithoutADirection() throws {
        let rules = try RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml")
        let tag = PeerIdentity(address: .short(0x0B02), name: "tag-7")
        var engine = ProximityEngine(rules: rules, peers: [tag], deviceHasAoA: false)
        let sample = RangingSample(distanceMeters: 0.5, azimuthDeg: nil, azimuthFOM: 0, elevationDeg: nil, elevationFOM: 0)
        let outputs = engine.ingest(peer: tag, sample: sample, at: Self.ts)
        let feedback = try #require(outputs.lazy.compactMap { if case let .feedback(f) = $0 { f } else { nil } }.first)
        #expect(String(decoding: feedbackPayload(feedback), as: UTF8.self) == #"""
            {"ts": "2026-11-29T18:30:00.123Z", "peer": "tag-7", "stage": "reach", "attributes": {"facing_tolerance_deg": 15, "shows_distance": false}, "progress": 0.5, "facing": null, "direction_source": null, "cue": null}
            """#)
    }

    /// `state` on every change of a discrete member along a walk in and out of the example rules'
    /// zone, stages and approach, then lost: each kind's members as it wrote them, names escaped.
    /// The answer to a `state` request lists the same bytes.
    @Test func statePayloadBytes() throws {
        let rules = try RulesFile.load(text: RulesFile.exampleYAML, file: "rules.yaml")
        let phone = PeerIdentity(address: .short(0x0B01), name: "phone-\"anna\"")
        var engine = ProximityEngine(rules: rules, peers: [phone], deviceHasAoA: true)
        var outputs: [ProximityOutput] = []
        var time = Self.ts
        for step in 0..<30 {
            let sample = RangingSample(distanceMeters: 3.0 - Double(step) * 0.1, azimuthDeg: 3.25, azimuthFOM: 90, elevationDeg: -2, elevationFOM: 90)
            outputs += engine.ingest(peer: phone, sample: sample, at: time)
            time += 0.2
        }
        outputs += engine.tick(at: time + 10)
        let states = outputs.compactMap { if case let .state(s) = $0 { s } else { nil } }
        let payloads = states.map { s in
            var json = JSONBytes(capacity: 64)
            ProximityPayloads.state(s, ts: Timestamp.rfc3339(s.ts), peer: ProximityPayloads.peer(s.peer), into: &json)
            return json.takeBytes()
        }
        #expect(payloads.map { String(decoding: $0, as: UTF8.self) } == #"""
            {"ts": "2026-11-29T18:30:00.123Z", "peer": "phone-\"anna\"", "link": "ranging", "distance_m": 3.0, "direction": "available", "direction_source": "gateway", "azimuth_deg": 3.25, "elevation_deg": -2.0, "zones": [], "stage": "point", "approaches": {"handoff": {"phase": "idle", "progress": 0.0}}, "facing": true}
            {"ts": "2026-11-29T18:30:04.523Z", "peer": "phone-\"anna\"", "link": "ranging", "distance_m": 0.8, "direction": "available", "direction_source": "gateway", "azimuth_deg": 3.25, "elevation_deg": -2.0, "zones": [], "stage": "reach", "approaches": {"handoff": {"phase": "idle", "progress": 0.0}}, "facing": true}
            {"ts": "2026-11-29T18:30:04.723Z", "peer": "phone-\"anna\"", "link": "ranging", "distance_m": 0.7, "direction": "available", "direction_source": "gateway", "azimuth_deg": 3.25, "elevation_deg": -2.0, "zones": ["counter"], "stage": "reach", "approaches": {"handoff": {"phase": "idle", "progress": 0.0}}, "facing": true}
            {"ts": "2026-11-29T18:30:04.923Z", "peer": "phone-\"anna\"", "link": "ranging", "distance_m": 0.6, "direction": "available", "direction_source": "gateway", "azimuth_deg": 3.25, "elevation_deg": -2.0, "zones": ["counter"], "stage": "reach", "approaches": {"handoff": {"phase": "ready", "progress": 8.922788598264564e-07}}, "facing": true}
            {"ts": "2026-11-29T18:30:05.923Z", "peer": "phone-\"anna\"", "link": "ranging", "distance_m": 0.1, "direction": "available", "direction_source": "gateway", "azimuth_deg": 3.25, "elevation_deg": -2.0, "zones": ["counter"], "stage": "reach", "approaches": {"handoff": {"phase": "completed", "progress": 1.0}}, "facing": true}
            {"ts": "2026-11-29T18:30:16.123Z", "peer": "phone-\"anna\"", "link": "lost", "distance_m": null, "direction": "unavailable", "direction_source": null, "azimuth_deg": null, "elevation_deg": null, "zones": [], "stage": null, "approaches": {"handoff": {"phase": "idle", "progress": 0.0}}, "facing": null}
            """#.split(separator: "\n").map(String.init))
        for (s, payload) in zip(states, payloads) {
            var json = JSONBytes(capacity: 64)
            json.append(ProximityPayloads.stateValue(s))
            #expect(json.takeBytes() == payload)
        }
    }

    /// The memo gives `Timestamp.rfc3339`'s text for every time, repeated or not, in any order.
    @Test func timestampMemoNeverServesAStaleTime() {
        var memo = TimestampMemo()
        let times: [Double] = [Self.ts, Self.ts, Self.ts + 0.001, Self.ts, 0, -0.0, .nan, .nan, 0, -0.001, .infinity, Self.ts]
        for t in times { #expect(memo.rfc3339(t) == Timestamp.rfc3339(t), "\(t)") }
    }

    /// Shared by the payloads of a test, as the agent shares one: its memo must never leak a stale time.
    private var timestamps = TimestampMemo()
    /// One writer for every payload of a test, as the agent's outbox writes every payload of a
    /// round into one buffer: a payload must not depend on what was written before it.
    private var written: ByteBuffer? = {
        var json = JSONBytes(capacity: 16)
        json.appendObject([JSONMember("earlier", .list([1, 2]))])
        return json.finish()
    }()

    private mutating func rangePayload(_ m: TwoWayRangingMeasurement, filtered: Double?, angles: (Double?, Double?),
                              sequence: UInt32 = 0) -> [UInt8] {
        var json = JSONBytes(continuing: written.take()!)
        let start = json.count
        Payloads.range(into: &json, ts: timestamps.rfc3339(Self.ts), peer: Payloads.rangePeer(name: "tool-cart", mac: "0A:01"), measurement: m, session: UInt32.max,
                       sequence: sequence, filteredDistance: filtered, angles: angles)
        let payload = json.withBytes(in: start..<json.count) { Array($0) }
        written = json.finish()
        return payload
    }

    private mutating func feedbackPayload(_ f: Feedback) -> [UInt8] {
        var json = JSONBytes(continuing: written.take()!)
        let start = json.count
        ProximityPayloads.feedback(f, ts: timestamps.rfc3339(f.ts), peer: ProximityPayloads.peer(f.peer), into: &json)
        let payload = json.withBytes(in: start..<json.count) { Array($0) }
        written = json.finish()
        return payload
    }
}
