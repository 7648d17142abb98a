import Proximity
import Testing

/// A phone that reports the angle at which it sees the gateway gives its peer a direction on a
/// gateway whose device has no angle of arrival: facing, cues and facing bonuses follow it, and
/// nothing is carried forward when the reports stop or say there is no angle.
@Suite struct PhoneDirectionTests {
    @Test func facingFollowsThePhonesReportsOnADeviceWithoutAoA() throws {
        var drive = Drive(try unfiltered(DirectionFacingTests.facing30), peers: [anna], aoa: false)
        drive.measure(anna, 2, at: 0)
        drive.report(anna, azimuth: 10, elevation: -5, at: 0.05)   // available from the phone, facing
        drive.measure(anna, 2, at: 0.1)                            // the device has no angle: the phone's stays
        drive.report(anna, azimuth: 5, elevation: 40, at: 0.15)    // pointing above the gateway: not facing
        drive.report(anna, azimuth: -20, elevation: 10, at: 0.2)   // facing again
        drive.report(anna, azimuth: nil, at: 0.25)                 // out of the phone's view: unavailable at once
        drive.report(anna, azimuth: 0, at: 0.3)                    // back, without an elevation: azimuth decides
        drive.tick(at: 0.8)                                        // 0.5 s old: still fresh
        drive.tick(at: 0.81)                                       // the reports stopped: stale
        #expect(drive.eventLines() == [
            "direction_available \"unavailable\"→\"available\"", "facing_gained null→true",
            "facing_lost true→false", "facing_gained false→true",
            "direction_unavailable \"available\"→\"unavailable\"", "facing_lost true→null",
            "direction_available \"unavailable\"→\"available\"", "facing_gained null→true",
            "direction_unavailable \"available\"→\"unavailable\"", "facing_lost true→null",
        ])
        let e = drive.events
        #expect(e[0].reason == EventReason(directionSource: .phone))
        #expect(e[1].cue?.json == #"{"sound": "lock"}"# && e[5].cue?.json == #"{"sound": "unlock"}"#)
        #expect(e[4].reason == EventReason(cause: "no_angle", directionSource: .phone))
        #expect(e[5].reason.cause == "direction_unavailable")
        #expect(e[8].reason == EventReason(cause: "stale", directionSource: .phone) && e[8].ts == 0.81)
        // The measurement at 0.1 judged facing from the phone's angle, and says so.
        #expect(drive.feedback.map(\.facing) == [true] && drive.feedback.map(\.directionSource) == [.phone])
        // A phone's angle is where it points, not where it is: never a position.
        #expect(drive.positions.isEmpty)
        #expect(drive.states.contains { $0.directionSource == .phone && $0.azimuthDeg == 10 && $0.elevationDeg == -5 })
        let state = try #require(drive.engine.state(of: anna, at: 0.81))
        #expect(state.directionSource == nil && state.azimuthDeg == nil && state.facing == nil && state.distanceM == 2)
    }

    /// A report dated before `max_age` counts for nothing; one dated ahead of the gateway's clock
    /// ages from its arrival, so that no clock can keep an angle alive.
    @Test func aLateReportIsStaleAndAFutureOneAgesFromItsArrival() throws {
        var drive = Drive(try unfiltered(DirectionFacingTests.facing30), peers: [anna], aoa: false)
        drive.measure(anna, 2, at: 10)
        drive.report(anna, azimuth: 0, measured: 9.4, at: 10)
        #expect(drive.events.isEmpty)
        drive.report(anna, azimuth: 0, measured: 1_000_000, at: 10.1)
        drive.tick(at: 10.7)
        #expect(drive.eventLines([.directionAvailable, .directionUnavailable]) == [
            "direction_available \"unavailable\"→\"available\"", "direction_unavailable \"available\"→\"unavailable\"",
        ])
        #expect(drive.events.last?.ts == 10.7)
    }

    /// The device's own angle is used while it has one; the phone's fresh angle takes over when it
    /// goes, without an availability event, and the state says whose it is.
    @Test func theDevicesAngleComesFirstAndThePhonesTakesOver() throws {
        var drive = Drive(try unfiltered(DirectionFacingTests.facing30), peers: [anna], aoa: true)
        drive.measure(anna, 2, at: 0, azimuth: 10)
        drive.report(anna, azimuth: 80, at: 0.05)                // kept, not used: the device's angle stays
        #expect(drive.engine.state(of: anna, at: 0.05)?.azimuthDeg == 10)
        drive.report(anna, azimuth: 5, at: 0.1)
        drive.measure(anna, 2, at: 0.2, azimuth: 20, fom: 10)    // the device's angle is poor: the phone's now
        let state = try #require(drive.engine.state(of: anna, at: 0.2))
        #expect(state.directionSource == .phone && state.azimuthDeg == 5 && state.facing == true)
        #expect(drive.eventLines([.directionAvailable, .directionUnavailable]) == ["direction_available \"unavailable\"→\"available\""])
        #expect(drive.events.first?.reason == EventReason(fom: 100, directionSource: .gateway))
        #expect(drive.states.map(\.directionSource) == [.gateway, .phone])
        drive.measure(anna, 2, at: 0.3, azimuth: -10)            // good again: the device's
        #expect(drive.engine.state(of: anna, at: 0.3)?.directionSource == .gateway)
    }

    /// A lost link takes the phone's angle with it; a report while the link is down gives no
    /// direction, and the next measurement uses it only while it is fresh.
    @Test func noDirectionWithoutALink() throws {
        var drive = Drive(try unfiltered(DirectionFacingTests.facing30), peers: [anna], aoa: false)
        drive.report(anna, azimuth: 0, at: 0)                    // connecting: nothing yet
        #expect(drive.events.isEmpty)
        drive.measure(anna, 2, at: 0.1)                          // the report is fresh: used
        drive.tick(at: 2.2)                                      // lost, with its direction
        #expect(drive.eventLines([.directionAvailable, .directionUnavailable, .signalLost]) == [
            "direction_available \"unavailable\"→\"available\"", "signal_lost \"ranging\"→\"lost\"",
            "direction_unavailable \"available\"→\"unavailable\"",
        ])
        #expect(drive.events.last { $0.type == .directionUnavailable }?.reason == EventReason(cause: "timeout", directionSource: .phone))
        drive.measure(anna, 2, at: 3)                            // regained: the old report is not carried over
        #expect(drive.engine.state(of: anna, at: 3)?.directionSource == nil)
    }

    /// A ranking's facing bonus follows the phone's angle.
    @Test func aFacingBonusFromThePhone() throws {
        var drive = Drive(try unfiltered(RankingTests.rankingRules), aoa: false)
        drive.measure(cart, 4, at: 0)     // 15
        drive.measure(anna, 3, at: 0.1)   // 0
        drive.report(anna, azimuth: 3, elevation: 2, at: 0.15)   // facing: 20, first
        drive.report(anna, azimuth: 60, at: 0.2)                 // not facing: second again
        #expect(drive.rankings.map { $0.peers.map { "\($0.peer.displayName)=\(Int($0.score))" } } == [
            ["tool-cart=15"], ["tool-cart=15", "phone-anna=0"], ["phone-anna=20", "tool-cart=15"], ["tool-cart=15", "phone-anna=0"],
        ])
    }
}
