#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// Where a peer is, from one distance and angle of arrival: the `position` payload.
///
/// Gateway frame: origin at the antenna, x forward along the boresight (azimuth 0, elevation 0), y to
/// the left (positive azimuth), z up (positive elevation); right-handed. So 2 m at azimuth 90°,
/// elevation 0 is (0, 2, 0). Site frame: the gateway frame rotated by `heading_deg` about z and moved
/// to the gateway's position. Only computed from a fresh azimuth *and* elevation with FOM ≥ `min_fom`:
/// distance alone gives no position, and a missing elevation is not assumed to be 0.
public struct Position: Hashable, Sendable {
    public enum Frame: String, Hashable, Sendable, CaseIterable {
        case gateway
        case site
    }

    public var ts: Double
    public var peer: PeerIdentity
    public var frame: Frame
    public var x: Double
    public var y: Double
    public var z: Double
    /// One-sigma radius, metres: the distance uncertainty combined with the angle uncertainties (see
    /// ``angleSigmaDegrees(fom:)``) projected at the distance.
    public var accuracyM: Double

    public init(ts: Double, peer: PeerIdentity, frame: Frame, x: Double, y: Double, z: Double, accuracyM: Double) {
        self.ts = ts
        self.peer = peer
        self.frame = frame
        self.x = x
        self.y = y
        self.z = z
        self.accuracyM = accuracyM
    }

    /// Computes a position; `distanceSigma` is the distance's one-sigma uncertainty in metres.
    public static func estimate(ts: Double, peer: PeerIdentity, distance: Double, azimuthDeg: Double, azimuthFOM: Int,
                                elevationDeg: Double, elevationFOM: Int, distanceSigma: Double,
                                gateway: GatewayPose?) -> Position {
        let az = azimuthDeg * .pi / 180, el = elevationDeg * .pi / 180
        let gx = distance * cos(el) * cos(az)
        let gy = distance * cos(el) * sin(az)
        let gz = distance * sin(el)
        let sAz = angleSigmaDegrees(fom: azimuthFOM) * .pi / 180
        let sEl = angleSigmaDegrees(fom: elevationFOM) * .pi / 180
        let lateral = distance * cos(el) * sAz
        let vertical = distance * sEl
        let accuracy = (distanceSigma * distanceSigma + lateral * lateral + vertical * vertical).squareRoot()
        guard let site = gateway?.site else {
            return Position(ts: ts, peer: peer, frame: .gateway, x: gx, y: gy, z: gz, accuracyM: accuracy)
        }
        let h = site.heading * .pi / 180
        return Position(ts: ts, peer: peer, frame: .site,
                        x: site.position.x + gx * cos(h) - gy * sin(h),
                        y: site.position.y + gx * sin(h) + gy * cos(h),
                        z: site.position.z + gz, accuracyM: accuracy)
    }

    /// An angle's one-sigma uncertainty from its figure of merit: 3° at FOM 100 (a DWM3001C-class
    /// two-antenna array in line of sight) rising linearly to 20° at FOM 0. A model, not a measurement;
    /// it makes poor angles visibly less accurate.
    public static func angleSigmaDegrees(fom: Int) -> Double {
        3 + 17 * Double(100 - min(100, max(0, fom))) / 100
    }
}
