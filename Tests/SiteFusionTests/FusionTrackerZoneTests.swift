import Vocabulary
import SiteFusion
import Testing

/// Site zones through the whole tracker: hysteresis and dwell keep a noisy position at a zone's edge
/// from flapping.
@Suite struct FusionTrackerZoneTests {
    /// A 2 m × 1.5 m zone in the middle of the 6 m gateway square.
    static let checkout = PolygonZone(name: "checkout", vertices: [PlanarPoint(x: 2, y: 2), PlanarPoint(x: 4, y: 2),
                                                                   PlanarPoint(x: 4, y: 3.5), PlanarPoint(x: 2, y: 3.5)],
                                      hysteresis: 0.2, dwell: 0.3)

    /// The ``hoveringX(_:)`` track with 5 cm range noise: exactly one enter and one exit.
    @Test(arguments: UInt64(1)...8)
    func noisyTrackAtTheEdgeEntersAndExitsOnce(seed: UInt64) throws {
        var harness = TrackerHarness(zones: [Self.checkout], rangeNoise: 0.05, seed: seed)
        harness.run(from: 0, to: 18) { SitePoint(x: Self.hoveringX($0), y: 2.75, z: 1) }
        let zoneEvents = harness.events.filter { $0.zone == "checkout" }
        #expect(zoneEvents.map(\.type) == [.zoneEnter, .zoneExit], "\(zoneEvents)")
        let enter = try #require(zoneEvents.first), exit = try #require(zoneEvents.last)
        #expect((7...9).contains(enter.ts))
        #expect((15...17).contains(exit.ts))
        for event in zoneEvents {
            #expect(event.reason.thresholdM == 0.2)
            #expect(event.reason.dwellMs == 300)
            let crossed = try #require(event.reason.crossedAt)
            #expect(event.ts - crossed >= 0.3 - 1e-6)
        }
        #expect(enter.from == "outside" && enter.to == "inside" && exit.from == "inside" && exit.to == "outside")
        let zoneLists = harness.states.map(\.zones)
        #expect(zoneLists.contains(["checkout"]) && zoneLists.last == [])
        #expect(!harness.events.contains { $0.type == .positionLost })
    }

    /// The same track without hysteresis and dwell flaps: the two are what makes it one enter.
    @Test func withoutHysteresisAndDwellTheSameTrackFlaps() {
        var bare = Self.checkout
        bare.hysteresis = 0
        bare.dwell = 0
        var harness = TrackerHarness(zones: [bare], rangeNoise: 0.05, seed: 1)
        harness.run(from: 0, to: 18) { SitePoint(x: Self.hoveringX($0), y: 2.75, z: 1) }
        let count = harness.events.filter { $0.zone == "checkout" }.count
        print("edge-hovering track, no hysteresis or dwell: \(count) zone events")
        #expect(count > 10)
    }

    /// Walks in from x = 0.5 to the edge (x = 2), hovers there ±5 cm for 4 s, goes in to x = 3,
    /// back to the edge, hovers for 4 s, and walks out.
    static func hoveringX(_ t: Double) -> Double {
        switch t {
        case ..<3: 0.5 + 1.5 * t / 3
        case ..<7: 2.0 + 0.05 * ((t * 7).truncatingRemainder(dividingBy: 2) - 1)
        case ..<9: 2.0 + (t - 7) / 2
        case ..<11: 3.0 - (t - 9) / 2
        case ..<15: 2.0 + 0.05 * ((t * 5).truncatingRemainder(dividingBy: 2) - 1)
        default: 2.0 - (t - 15) * 0.75
        }
    }

    /// Noise-free, to pin the timing: the crossing, the dwell completed by a later position, and a
    /// revert inside the dwell that cancels it.
    @Test func dwellTimingAndRevert() throws {
        var harness = TrackerHarness(zones: [Self.checkout])
        // Outside until 1 s, inside (0.5 m deep) from 1 s to 1.2 s (shorter than the dwell), out
        // again until 2 s, then inside for good.
        harness.run(from: 0, to: 4) { t in
            let inside = (1.0..<1.2).contains(t) || t >= 2
            return SitePoint(x: inside ? 2.5 : 1.0, y: 2.75, z: 1)
        }
        let zoneEvents = harness.events.filter { $0.zone == "checkout" }
        #expect(zoneEvents.count == 1)
        let enter = try #require(zoneEvents.first)
        #expect(enter.type == .zoneEnter)
        // A position comes once per round of the four gateways (every 200 ms), and the first one
        // after the jump mixes ranges from both places (the window reaches back 150 ms), so the
        // crossing is between 2.0 s and 2.3 s (the first round whose window holds only new ranges).
        let crossed = try #require(enter.reason.crossedAt)
        #expect((2.0...2.3 + 1e-9).contains(crossed))
        // Completed by the first position (every 50 ms) or tick at or after crossing + 300 ms.
        #expect((0.3 - 1e-9...0.35 + 1e-9).contains(enter.ts - crossed))
    }

    /// When positions stop, a pending dwell still completes on a tick, at the moment it ran out.
    @Test func tickCompletesDwell() throws {
        var tracker = FusionTracker(settings: FusionSettings(tagHeight: 1), zones: [Self.checkout])
        for (id, p) in SyntheticSite.square { tracker.updateGateway(id, position: p, online: true) }
        let tag = SitePoint(x: 3, y: 2.75, z: 1)
        var outputs: [FusionOutput] = []
        for (i, (id, p)) in SyntheticSite.square.enumerated() {
            outputs += tracker.ingest(GatewayRange(peer: "cart", gateway: id, distanceM: tag.distance(to: p), time: 10 + 0.01 * Double(i)))
        }
        #expect(!outputs.contains { if case .event = $0 { true } else { false } })
        #expect(tracker.tick(at: 10.2).isEmpty)
        let later = tracker.tick(at: 10.5)
        let event = try #require(later.compactMap { if case .event(let e) = $0 { e } else { nil } }.first)
        #expect(event.type == .zoneEnter)
        #expect(abs(event.ts - 10.32) < 1e-9)  // crossed at the first fix (10.02 s) + 300 ms
        #expect(tracker.state(of: "cart")?.zones == ["checkout"])
    }
}
