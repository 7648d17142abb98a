import Vocabulary
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import UCI

/// Turns where a peer is (the scenario) into what the firmware reports for it in one round
/// (uci.md §5.2, §5.3), including the firmware's conventions for failures and missing angles.
struct RangingModel {
    /// FOM of an angle measured in line of sight, and behind an obstacle (below a typical
    /// `min_fom` of 50, so direction rules see the angle as unavailable).
    static let lineOfSightFOM: UInt8 = 90
    static let nonLineOfSightFOM: UInt8 = 35

    let scenario: Scenario
    /// The gateway's site position, for site-frame paths.
    var gatewayPosition: SitePoint? = nil

    /// One peer's measurement at scenario time `t`. Draws from `rng` in a fixed order.
    func measurement(for address: UInt16, at t: Double, session: SimulatedSession,
                     rng: inout SplitMix64) -> TwoWayRangingMeasurement {
        guard let peer = scenario.peer(address), !peer.outOfRange.contains(where: { $0.contains(t) }) else {
            return Self.timeout(address)
        }
        let burst = peer.dropouts.filter { $0.window.contains(t) }.map(\.probability).max() ?? 0
        let lossProbability = max(scenario.noise.dropoutProbability, burst)
        let lossDraw = rng.nextUnit()
        if lossDraw < lossProbability { return Self.timeout(address) }

        // Nil only for a site-frame path without a gateway position, which the device refuses
        // at creation; answering "no reply" keeps this total without inventing a distance.
        guard let pose = peer.pose(at: t, from: gatewayPosition) else { return Self.timeout(address) }
        let nlos = peer.nlos.first { $0.window.contains(t) }
        let measured = pose.distance + (nlos?.bias ?? 0) + scenario.noise.sigma * rng.nextGaussian()
        let centimetres = (measured * 100).rounded()
        let raw = UInt16(min(abs(centimetres), Double(TwoWayRangingMeasurement.invalidDistance - 1)))

        var m = TwoWayRangingMeasurement(macAddress: .short(address),
                                         status: centimetres < 0 ? .okNegativeDistanceReport : .ok,
                                         nlosRaw: nlos == nil ? 0 : 1, distanceRaw: raw, slotIndex: 0)
        if scenario.device.hasAoA && session.wantsAngles, let azimuth = pose.azimuth {
            let fom = nlos == nil ? Self.lineOfSightFOM : Self.nonLineOfSightFOM
            let noisyAzimuth = max(-180, min(180, azimuth + scenario.noise.angleSigma * rng.nextGaussian()))
            m.aoaAzimuth = Q9_7Angle(degrees: noisyAzimuth)
            m.aoaAzimuthFOM = fom
            if let elevation = pose.elevation {
                let noisyElevation = max(-90, min(90, elevation + scenario.noise.angleSigma * rng.nextGaussian()))
                m.aoaElevation = Q9_7Angle(degrees: noisyElevation)
                m.aoaElevationFOM = fom
            }
        }
        if session.reportsRSSI {
            // Free-space-like path loss, a few dB worse behind an obstacle; Q7.1 of |dBm|.
            let dBm = -(40 + 20 * log10(max(pose.distance, 0.1))) - (nlos == nil ? 0 : 6)
            m.rssiRaw = UInt8(max(1, min(255, (-dBm * 2).rounded())))
        }
        return m
    }

    /// What the firmware reports for a peer that did not answer (uci.md §7 V11).
    static func timeout(_ address: UInt16) -> TwoWayRangingMeasurement {
        TwoWayRangingMeasurement(macAddress: .short(address), status: .rangingRxTimeout, nlosRaw: 0xFF,
                                 distanceRaw: TwoWayRangingMeasurement.invalidDistance, slotIndex: 2)
    }
}
