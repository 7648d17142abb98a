import Vocabulary
import Foundation
import Testing
import UCI
@testable import Simulator

@Suite("Site geometry and wall-clock scenes")
struct GeometryTests {
    /// A tag walking 10 m along the x axis at 1 m height, then 4 m up the y axis at 1.5 m.
    static let walk = PeerTrack(address: 1, name: "badge", path: [
        .init(t: 0, x: 0, y: 0),
        .init(t: 10, x: 10, y: 0),
        .init(t: 14, x: 10, y: 4, z: 1.5),
    ])

    /// Every round's distance (centimetres, nil when lost) keyed by its scene time, for a device
    /// at `gateway` ranging peer 1 from scene time 0 to `until`.
    static func ranges(_ scenario: Scenario, from gateway: SitePoint, until: Double) throws -> [(t: Double, m: TwoWayRangingMeasurement)] {
        var device = try SimulatedDevice(scenario: scenario, gatewayPosition: gateway)
        bringUp(&device)
        return sessionInfos(messages(device.advance(to: until))).map { info in
            (Double(info.sequenceNumber + 1) * 0.2, info.twoWayMeasurements[0])
        }
    }

    @Test("a site-frame path gives the Euclidean distance from each gateway's own position")
    func euclideanFromTwoGateways() throws {
        let scenario = Scenario(seed: 3, noise: .none, peers: [Self.walk])
        let gateways = [SitePoint(x: 0, y: 3, z: 2.5), SitePoint(x: 8, y: -2, z: 0.5)]
        var perGateway: [[UInt16]] = []
        for gateway in gateways {
            let rounds = try Self.ranges(scenario, from: gateway, until: 16)
            #expect(rounds.count == 80)
            for (t, m) in rounds {
                // The tag walks straight lines in the site frame; the distance follows from that.
                let tag = t <= 10 ? SitePoint(x: t, y: 0, z: 1)
                    : t <= 14 ? SitePoint(x: 10, y: (t - 10), z: 1 + 0.5 * (t - 10) / 4)
                    : SitePoint(x: 10, y: 4, z: 1.5)
                let expected = (tag.distance(to: gateway) * 100).rounded()
                #expect(m.status == .ok && m.nlosRaw == 0)
                #expect(abs(Double(m.distanceRaw) - expected) <= 1, "t = \(t): \(m.distanceRaw) cm, expected \(expected)")
                #expect(m.aoaAzimuthFOM == 0)   // site paths carry no angles
            }
            perGateway.append(rounds.map(\.m.distanceRaw))
        }
        #expect(perGateway[0] != perGateway[1])
        // Spot values worked by hand: at t = 5 s the tag is at (5, 0, 1).
        let atFive = try #require(try Self.ranges(scenario, from: gateways[0], until: 5).last)
        #expect(atFive.t == 5 && atFive.m.distanceRaw == UInt16((sqrt(25 + 9 + 2.25) * 100).rounded()))   // 602 cm
        let fromB = try #require(try Self.ranges(scenario, from: gateways[1], until: 5).last)
        #expect(fromB.m.distanceRaw == UInt16((sqrt(9 + 4 + 0.25) * 100).rounded()))                       // 364 cm
    }

    @Test("the interpolated site position and the pose seen from a gateway")
    func poseAndPosition() {
        #expect(Self.walk.isSiteFrame && Self.walk.position(at: 12) == SitePoint(x: 10, y: 2, z: 1.25))
        #expect(Self.walk.position(at: -1) == SitePoint(x: 0, y: 0, z: 1))
        #expect(Self.walk.pose(at: 3, from: SitePoint(x: 3, y: 4, z: 1))?.distance == 4)
        #expect(Self.walk.pose(at: 3) == nil)                      // nothing to measure from
        #expect(PeerTrack(address: 2, path: [.init(t: 0, distance: 2)]).position(at: 0) == nil)
        #expect(PeerTrack(address: 2, path: [.init(t: 0, distance: 2)]).pose(at: 0)?.distance == 2)
    }

    @Test("NLoS bias, dropouts and out-of-range windows still apply to site-frame paths")
    func windowsStillApply() throws {
        let peer = PeerTrack(address: 1, path: [.init(t: 0, x: 3, y: 4)],
                             outOfRange: [TimeWindow(from: 5, to: 6)],
                             nlos: [NLoSWindow(from: 1, to: 2, bias: 0.4)],
                             dropouts: [DropoutWindow(from: 3, to: 4, probability: 1)])
        let rounds = try Self.ranges(Scenario(noise: .none, peers: [peer]), from: SitePoint(x: 0, y: 0, z: 1), until: 7)
        for (t, m) in rounds {
            switch t {
            // `t` is computed as the device computes its round times, so the window edges match.
            case 1..<2:
                #expect(m.status == .ok && m.nlosRaw == 1 && m.distanceRaw == 540, "t = \(t)")
            case 3..<4, 5..<6:
                #expect(m.status == .rangingRxTimeout && m.distanceRaw == 0xFFFF, "t = \(t)")
            default:
                #expect(m.status == .ok && m.nlosRaw == 0 && m.distanceRaw == 500, "t = \(t)")
            }
        }
        #expect(rounds.count == 35)
    }

    @Test("site-frame ranges are noisy like any other, from the scenario seed")
    func noise() throws {
        let scenario = Scenario(seed: 11, noise: ScenarioNoise(sigma: 0.05, angleSigma: 0, dropoutProbability: 0),
                                peers: [PeerTrack(address: 1, path: [.init(t: 0, x: 3, y: 4)])])
        let gateway = SitePoint(x: 0, y: 0, z: 1)
        let rounds = try Self.ranges(scenario, from: gateway, until: 40)
        let errors = rounds.map { Double($0.m.distanceRaw) / 100 - 5 }
        let mean = errors.reduce(0, +) / Double(errors.count)
        let sd = (errors.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(errors.count)).squareRoot()
        #expect(abs(mean) < 0.02 && sd > 0.03 && sd < 0.07, "mean \(mean), sd \(sd)")
        #expect(try Self.ranges(scenario, from: gateway, until: 40).map(\.m) == rounds.map(\.m))
    }

    @Test("one path, one kind: mixed keyframes and site keyframes with angles are rejected")
    func mixedKinds() {
        #expect(throws: ScenarioError.mixedKeyframeKinds(peer: "0x0001", index: 1)) {
            try Scenario(peers: [PeerTrack(address: 1, path: [.init(t: 0, distance: 1), .init(t: 1, x: 1, y: 1)])]).validate()
        }
        #expect(throws: ScenarioError.mixedKeyframeKinds(peer: "tag", index: 2)) {
            try Scenario(peers: [PeerTrack(address: 1, name: "tag", path: [
                .init(t: 0, x: 0, y: 0), .init(t: 1, x: 1, y: 1), .init(t: 2, distance: 1),
            ])]).validate()
        }
        var angled = PeerTrack.Keyframe(t: 0, x: 1, y: 1)
        angled.azimuth = 20
        #expect(throws: ScenarioError.siteKeyframeWithAngles(peer: "0x0001", index: 0)) {
            try Scenario(peers: [PeerTrack(address: 1, path: [angled])]).validate()
        }
        #expect(throws: ScenarioError.notFinite(field: "peers[0x0001].path[0].y")) {
            try Scenario(peers: [PeerTrack(address: 1, path: [.init(t: 0, x: 1, y: .nan)])]).validate()
        }
    }

    @Test("site keyframes decode with z defaulting to 1 m; ambiguous keyframes are decoding errors",
          arguments: [
            (#"{"t": 0, "distance": 2, "x": 1, "y": 1}"#, "not both"),
            (#"{"t": 0, "x": 1}"#, "either distance, or x and y"),
            (#"{"t": 0}"#, "either distance, or x and y"),
            (#"{"t": 0, "distance": 2, "z": 1}"#, "either distance, or x and y"),
            (#"{"t": 0, "x": 1, "y": 1, "azimuth": 10}"#, "cannot give azimuth"),
            (#"{"t": 0, "x": 1, "y": 1}, {"t": 1, "distance": 3}"#, "path[1] mixes distance and site"),
          ])
    func decoding(keyframes: String, message: String) {
        let json = #"{"peers": [{"address": 1, "path": [\#(keyframes)]}]}"#
        expectScenarioRejected(json, saying: message)
    }

    @Test("a site keyframe decodes to the model, z defaulting to 1 m")
    func decodeSite() throws {
        let json = #"{"clock": "wall", "duration": 30, "peers": [{"address": 1, "path": [{"t": 0, "x": 1, "y": 2}, {"t": 5, "x": 3, "y": 4, "z": 0.5}]}]}"#
        let scenario = try JSONDecoder().decode(Scenario.self, from: Data(json.utf8))
        #expect(scenario == Scenario(duration: 30, clock: .wall, peers: [
            PeerTrack(address: 1, path: [.init(t: 0, x: 1, y: 2, z: 1), .init(t: 5, x: 3, y: 4, z: 0.5)]),
        ]))
        #expect(scenario.placesPeersInSiteFrame && !Scenario.default.placesPeersInSiteFrame)
    }

    @Test("a site-frame scenario without a gateway position is refused at device creation, with the reason")
    func needsGatewayPosition() throws {
        let scenario = Scenario(peers: [PeerTrack(address: 1, path: [.init(t: 0, distance: 1)]),
                                        PeerTrack(address: 2, name: "badge", path: [.init(t: 0, x: 1, y: 1)])])
        try scenario.validate()   // a valid scenario: it is the device that lacks something
        do {
            _ = try SimulatedDevice(scenario: scenario)
            Issue.record("created a device without a gateway position")
        } catch {
            #expect(error == .gatewayPositionRequired(peer: "badge"))
            #expect(error.description.contains("this scenario places peers in site coordinates; give the gateway a position"))
        }
        _ = try SimulatedDevice(scenario: scenario, gatewayPosition: SitePoint(x: 0, y: 0, z: 2))
        _ = try SimulatedDevice(scenario: .default)   // gateway-frame scenarios need no position
        #expect(throws: ScenarioError.notFinite(field: "gatewayPosition")) {
            try SimulatedDevice(scenario: scenario, gatewayPosition: SitePoint(x: .infinity, y: 0, z: 0))
        }
    }

    // MARK: Wall clock

    @Test("start time from given clocks: now for clock start, now − (wall mod duration) for clock wall")
    func startTimeComputation() {
        let wall = Scenario(duration: 60, clock: .wall)
        // 1 700 000 000 = 28 333 333 × 60 + 20, so 1 700 000 030.5 is 50.5 s into a cycle.
        #expect(wall.startTime(monotonicNow: 1000, wallNow: 1_700_000_030.5) == 949.5)
        #expect(wall.startTime(monotonicNow: 1000, wallNow: 1_700_000_040) == 1000)   // a cycle boundary
        #expect(wall.startTime(monotonicNow: 1000, wallNow: -10) == 950)               // before 1970: phase 50
        #expect(Scenario(duration: 60).startTime(monotonicNow: 1000, wallNow: 1_700_000_030.5) == 1000)
        #expect(Scenario.default.startTime(monotonicNow: 12.25, wallNow: 1_700_000_030.5) == 12.25)
    }

    @Test("two processes with different monotonic clocks agree on scene time and on the tag's place")
    func twoProcessesAgree() throws {
        let scenario = Scenario(seed: 5, duration: 14, clock: .wall, noise: .none, peers: [Self.walk])
        let wallNow = 1_699_999_998.0   // 1 699 999 998 mod 14 = 4
        let gateway = SitePoint(x: 10, y: 0, z: 1)
        var devices: [SimulatedDevice] = []
        for monotonicNow in [1000.0, 73_215.125] {
            var device = try SimulatedDevice(scenario: scenario,
                                             startTime: scenario.startTime(monotonicNow: monotonicNow, wallNow: wallNow),
                                             gatewayPosition: gateway, poweredOnAt: monotonicNow)
            #expect(device.sceneTime == 4)
            bringUp(&device, at: monotonicNow)
            _ = device.advance(to: monotonicNow + 3)
            #expect(abs(device.sceneTime - 7) < 1e-9)
            devices.append(device)
        }
        // Their next rounds, a whole cycle later, measure the same distances.
        let distances = devices.indices.map { index in
            sessionInfos(messages(devices[index].advance(to: devices[index].now + 14)))
                .flatMap(\.twoWayMeasurements).map(\.distanceRaw)
        }
        #expect(distances[0] == distances[1] && distances[0].count == 70)
        #expect(distances[0].first == 280)   // scene time 7.2 s: the tag is at x = 7.2, 2.8 m from x = 10
    }

    @Test("clock wall needs a looping duration")
    func wallNeedsLoop() {
        #expect(throws: ScenarioError.wallClockNeedsLoop) { try Scenario(clock: .wall).validate() }
        #expect(throws: ScenarioError.wallClockNeedsLoop) { try Scenario(duration: 60, atEnd: .stop, clock: .wall).validate() }
        #expect(throws: Never.self) { try Scenario(duration: 60, clock: .wall).validate() }
        #expect(ScenarioError.wallClockNeedsLoop.description.contains("clock: wall needs a duration"))
    }

    @Test("a device powered on mid-scene does not fire the faults it slept through")
    func poweredOnMidScene() throws {
        let scenario = Scenario(duration: 60, clock: .wall, peers: [],
                                faults: [ScenarioFault(at: 10, .deviceError), ScenarioFault(at: 30, .garbage(bytes: 5))])
        let start = scenario.startTime(monotonicNow: 500, wallNow: 1_700_000_020)   // phase 40 → start 460
        var device = try SimulatedDevice(scenario: scenario, startTime: start, poweredOnAt: 500)
        #expect(device.advance(to: 500.5).isEmpty)
        #expect(device.deviceState == .ready)
        #expect(device.nextEventTime == 530.0)   // 460 + 60 + 10: the next cycle's device_error
        let next = device.advance(to: 460 + 60 + 10)
        #expect(notifications(messages(next)) == [.coreDeviceStatus(.error)])
        // Without poweredOnAt the past is replayed at once: the old behaviour, still available.
        var replaying = try SimulatedDevice(scenario: scenario, startTime: start)
        #expect(replaying.advance(to: 500.5).count == 2)
    }
}
