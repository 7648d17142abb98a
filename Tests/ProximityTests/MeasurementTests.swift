import Vocabulary
import Proximity
import Testing
import UCI

/// UCI ranging results as the engine reads them.
@Suite struct MeasurementTests {
    @Test func fromTwoWayRangingMeasurement() {
        let ok = RangingSample(TwoWayRangingMeasurement(macAddress: .short(2), distanceRaw: 150,
                                                        aoaAzimuth: Q9_7Angle(degrees: -12.5), aoaAzimuthFOM: 90,
                                                        aoaElevation: Q9_7Angle(degrees: 3), aoaElevationFOM: 70))
        #expect(ok.isValid && ok.distanceMeters == 1.5 && ok.azimuthDeg == -12.5 && ok.azimuthFOM == 90)
        #expect(ok.elevationDeg == 3 && ok.elevationFOM == 70 && ok.nonLineOfSight == false)
        let timeout = RangingSample(TwoWayRangingMeasurement(macAddress: .short(2), status: .rangingRxTimeout, distanceRaw: 150))
        #expect(!timeout.isValid)
        let invalid = RangingSample(TwoWayRangingMeasurement(macAddress: .short(2), distanceRaw: 0xFFFF))
        #expect(!invalid.isValid && invalid.distanceMeters == nil)
        let negative = RangingSample(TwoWayRangingMeasurement(macAddress: .short(2), status: .okNegativeDistanceReport, distanceRaw: 4))
        #expect(negative.isValid && negative.distanceMeters == -0.04)
    }

    @Test func engineTakesUCIMeasurements() throws {
        var engine = ProximityEngine(rules: try unfiltered("zones: [{name: desk, enter_within: 1, exit_beyond: 2}]\n"),
                                     peers: [anna], gateway: nil, deviceHasAoA: true)
        var failed: [ProximityOutput] = []
        engine.ingest(peer: anna, measurement: TwoWayRangingMeasurement(macAddress: .short(2), status: .rangingRxTimeout, distanceRaw: 50),
                      at: 1, into: &failed)
        #expect(failed.count == 1 && engine.state(of: anna, at: 1)?.link == .connecting)  // the initial state only
        // Appended to what the buffer holds.
        var negative = failed
        engine.ingest(peer: anna, measurement: TwoWayRangingMeasurement(macAddress: .short(2), status: .okNegativeDistanceReport, distanceRaw: 4),
                      at: 2, into: &negative)
        #expect(negative.count > failed.count && negative.first.map { "\($0)" } == failed.first.map { "\($0)" })
        #expect(negative.contains { if case .event(let e) = $0 { e.type == .zoneEnter && e.distanceM == 0 } else { false } })
        // A peer that is not configured is tracked by its address.
        let stranger = PeerIdentity(address: .short(0x00AB))
        _ = engine.ingest(peer: stranger, sample: RangingSample(distanceMeters: 3), at: 3)
        #expect(engine.state(of: stranger, at: 3)?.peer.displayName == "0x00AB")
        #expect(engine.states(at: 3).map(\.peer) == [anna, stranger])
    }

    @Test func hugeAndOddValuesDoNotTrap() throws {
        let r = try rules("version: 1\nzones: [{name: z, enter_within: 1e300, exit_beyond: 1e301, dwell: 1e300}]\n")
        var drive = Drive(r, peers: [anna], aoa: true)
        drive.measure(anna, .infinity, at: 0, azimuth: .nan)
        drive.measure(anna, 1e308, at: 1e300, azimuth: 1e9, elevation: -1e9)
        drive.tick(at: .infinity)
        #expect(TimeSpan(seconds: 1e300).milliseconds == Int.max)
    }
}
