import Vocabulary
import Foundation
import Proximity
import Testing

@Suite struct PositionTests {
    func close(_ p: Position, _ x: Double, _ y: Double, _ z: Double) -> Bool {
        abs(p.x - x) < 1e-6 && abs(p.y - y) < 1e-6 && abs(p.z - z) < 1e-6
    }

    /// Gateway frame: x along the boresight, y left (positive azimuth), z up (positive elevation).
    @Test(arguments: [
        (0.0, 0.0, 2.0, 0.0, 0.0), (90, 0, 0, 2, 0), (-90, 0, 0, -2, 0), (180, 0, -2, 0, 0),
        (0, 30, 2 * 0.8660254037844387, 0, 1), (45, 0, 2.squareRoot(), 2.squareRoot(), 0), (0, -90, 0, 0, -2),
    ] as [(Double, Double, Double, Double, Double)])
    func gatewayFrame(azimuth: Double, elevation: Double, x: Double, y: Double, z: Double) throws {
        let p = Position.estimate(ts: 0, peer: anna, distance: 2, azimuthDeg: azimuth, azimuthFOM: 100,
                                  elevationDeg: elevation, elevationFOM: 100, distanceSigma: 0.08, gateway: nil)
        #expect(p.frame == .gateway)
        #expect(close(p, x, y, z))
    }

    /// Site frame: rotate by heading (counter-clockwise from the site x axis), then translate.
    @Test(arguments: [
        (0.0, 90.0, 10.0, 7.0), (90, 90, 8, 5), (0, 0, 12, 5), (0, 180, 8, 5), (90, -90, 12, 5), (45, 45, 10, 7),
    ] as [(Double, Double, Double, Double)])
    func siteFrame(azimuth: Double, heading: Double, x: Double, y: Double) throws {
        let pose = GatewayPose(position: SitePoint(x: 10, y: 5, z: 2.4), headingDeg: heading)
        let p = Position.estimate(ts: 0, peer: anna, distance: 2, azimuthDeg: azimuth, azimuthFOM: 100,
                                  elevationDeg: 0, elevationFOM: 100, distanceSigma: 0.08, gateway: pose)
        #expect(p.frame == .site)
        #expect(close(p, x, y, 2.4))
    }

    @Test func accuracyGrowsWithDistanceAndPoorAngles() {
        func accuracy(_ d: Double, _ fom: Int) -> Double {
            Position.estimate(ts: 0, peer: anna, distance: d, azimuthDeg: 0, azimuthFOM: fom, elevationDeg: 0,
                              elevationFOM: fom, distanceSigma: 0.08, gateway: nil).accuracyM
        }
        let sigma = 2 * 3 * Double.pi / 180
        #expect(abs(accuracy(2, 100) - (0.08 * 0.08 + 2 * sigma * sigma).squareRoot()) < 1e-9)
        #expect(accuracy(4, 100) > accuracy(2, 100) && accuracy(2, 50) > accuracy(2, 100))
    }

    @Test func engineEmitsPositionsOnlyWithDirection() throws {
        let pose = GatewayPose(position: SitePoint(x: 10, y: 5, z: 2.4), headingDeg: 90)
        var drive = Drive(try unfiltered(""), peers: [anna], gateway: pose, aoa: true)
        drive.measure(anna, 2, at: 0, azimuth: 0, elevation: 0)
        drive.measure(anna, 2, at: 0.2, azimuth: 0, fom: 20, elevation: 0)  // low FOM: none
        drive.measure(anna, 2, at: 0.4)                                       // no angle: none
        drive.measure(anna, 2, at: 0.6, azimuth: 0)                           // no elevation: none
        #expect(drive.positions.count == 1)
        let p = try #require(drive.positions.first)
        #expect(p.frame == .site && close(p, 10, 7, 2.4) && p.ts == 0 && p.peer == anna)
        var plain = Drive(try unfiltered(""), peers: [anna], gateway: GatewayPose(headingDeg: 90), aoa: true)
        plain.measure(anna, 2, at: 0, azimuth: 90, elevation: 0)
        #expect(plain.positions.first.map { $0.frame == .gateway && close($0, 0, 2, 0) } == true)
    }
}
