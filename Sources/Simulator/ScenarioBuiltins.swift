/// Built-in scenarios, so that `uwb2mqtt simulate` is useful without writing a file.
extension Scenario {
    /// One minute, repeating, that drives every kind of proximity rule (rules.md) on a device
    /// without AoA, like a real DWM3001C:
    ///
    /// - `phone-anna` (0x0001) starts 12 m away (stage `locate`, beyond 10 m), walks in (stage
    ///   `point`), passes behind a shelf (NLoS, distance biased long) and through a short burst
    ///   of lost rounds (shorter than `signal_lost_after`, so the link survives), enters the
    ///   counter zone, comes within 0.6 m (approach ready), backs off beyond 0.7 m (approach
    ///   canceled), comes back to 8 cm (approach completed, stage `reach`, the odd noisy round
    ///   reads negative: status 0x1B) and holds there 5 s handing a phone over, then walks away
    ///   (zone exit) to 12 m.
    /// - `tool-cart` (0x0002) sits about 3 m away (a ranking candidate with a base score), goes
    ///   out of range for 10 s (link lost, `signal_regained` after) and comes back.
    ///
    /// The keyframes carry angles; they are reported only by `withAngles`.
    /// It starts at 12 m rather than 8 m so that the far `locate` band (beyond 10 m) is visited,
    /// and comes to 8 cm rather than 30 cm so that the handoff approach (12 cm) completes.
    /// `defaultYAML` is the same scenario as a commented file.
    public static let `default` = Scenario(
        name: "default", seed: 7, duration: 60, atEnd: .loop,
        device: ScenarioDevice(hasAoA: false),
        noise: ScenarioNoise(sigma: 0.05, angleSigma: 3, dropoutProbability: 0.01),
        peers: [
            PeerTrack(
                address: 0x0001, name: "phone-anna",
                path: [
                    .init(t: 0, distance: 12, azimuth: 40, elevation: 10),
                    .init(t: 4, distance: 9, azimuth: 35, elevation: 8),
                    .init(t: 10, distance: 3, azimuth: 20, elevation: 5),
                    .init(t: 13, distance: 1, azimuth: 8, elevation: 2),
                    .init(t: 14.5, distance: 0.5, azimuth: 4, elevation: 0),
                    .init(t: 15.5, distance: 0.9, azimuth: 6, elevation: 0),
                    .init(t: 17, distance: 0.55, azimuth: 3, elevation: 0),
                    .init(t: 18.5, distance: 0.08, azimuth: 1, elevation: 0),
                    .init(t: 23.5, distance: 0.08, azimuth: 0, elevation: 0),
                    .init(t: 25, distance: 0.8, azimuth: -10, elevation: 0),
                    .init(t: 28, distance: 1.6, azimuth: -25, elevation: 0),
                    .init(t: 34, distance: 6, azimuth: -45, elevation: 3),
                    .init(t: 40, distance: 12, azimuth: -60, elevation: 5),
                ],
                nlos: [NLoSWindow(from: 6, to: 8, bias: 0.4)],
                dropouts: [DropoutWindow(from: 11, to: 12, probability: 0.8)]),
            PeerTrack(
                address: 0x0002, name: "tool-cart",
                path: [
                    .init(t: 0, distance: 3, azimuth: -70, elevation: 0),
                    .init(t: 20, distance: 3.2, azimuth: -68, elevation: 0),
                    .init(t: 60, distance: 3, azimuth: -70, elevation: 0),
                ],
                outOfRange: [TimeWindow(from: 30, to: 40)]),
        ])

    /// `default` on a module that measures angles: facing rules, direction events and facing
    /// bonuses come alive (NLoS lowers the FOM below a typical `min_fom`, so direction also
    /// becomes unavailable for a moment).
    public static let withAngles: Scenario = {
        var scenario = Scenario.default
        scenario.name = "default-with-angles"
        scenario.device.hasAoA = true
        return scenario
    }()

    /// `default` with an iPhone among its peers (`make demo`): `iphone-eve` (its app asks the
    /// gateway over MQTT from the second second on, as `run --simulate` plays it) walks from 7 m
    /// to the counter, stays 15 s at 40 cm and walks away again, each minute. Its app reports
    /// where the phone sees the gateway: held low at first (out of view), raised towards the
    /// gateway while walking in (direction from the phone, facing gained), turned aside at the
    /// counter for a few seconds (facing lost, then gained again), lowered on the way out.
    public static let withIPhone: Scenario = {
        var scenario = Scenario.default
        scenario.name = "default-with-iphone"
        scenario.peers.append(PeerTrack(
            address: 0x7570, name: "iphone-eve",
            path: [.init(t: 0, distance: 7), .init(t: 8, distance: 7), .init(t: 18, distance: 0.4), .init(t: 33, distance: 0.4),
                   .init(t: 45, distance: 7), .init(t: 60, distance: 7)],
            iPhone: ScenarioIPhone(app: ScenarioPhoneApp(name: "iphone-eve", startAt: 2, pointing: [
                .init(t: 0, azimuth: 20, elevation: -70), .init(t: 9, azimuth: 30, elevation: -60),
                .init(t: 11, azimuth: 25, elevation: -5), .init(t: 16, azimuth: 4, elevation: 2),
                .init(t: 24, azimuth: 3, elevation: 0), .init(t: 25, azimuth: 35, elevation: 0),
                .init(t: 28, azimuth: 35, elevation: 0), .init(t: 29, azimuth: -2, elevation: 0),
                .init(t: 34, azimuth: -4, elevation: 0), .init(t: 36, azimuth: 10, elevation: -70),
                .init(t: 60, azimuth: 20, elevation: -70),
            ]))))
        return scenario
    }()

    /// Thirty seconds, repeating, with one of every fault, for testing the agent's recovery:
    /// garbage on the line, split packets, a session the firmware stops, a device error, a
    /// spontaneous reset and an unplug.
    public static let withFaults = Scenario(
        name: "faults", seed: 11, duration: 30, atEnd: .loop,
        device: ScenarioDevice(hasAoA: false),
        noise: ScenarioNoise(sigma: 0.03, angleSigma: 0, dropoutProbability: 0),
        peers: [PeerTrack(address: 0x0001, name: "phone-anna", path: [.init(t: 0, distance: 1.5)])],
        faults: [
            ScenarioFault(at: 3, .garbage(bytes: 24)),
            ScenarioFault(at: 5, .splitWrites(until: 8, maxChunk: 3, gap: 0.002)),
            ScenarioFault(at: 10, .sessionStopped(reason: .maxRangingRoundRetryCountReached)),
            ScenarioFault(at: 14, .deviceError),
            ScenarioFault(at: 18, .deviceReset),
            ScenarioFault(at: 22, .unplug(duration: 2)),
        ])
}
