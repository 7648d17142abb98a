import Testing
import UCI
@testable import Simulator

@Suite("Ranging notifications (uci.md §5)")
struct RangingTests {
    @Test("V11: a peer the scenario does not have times out, byte for byte")
    func v11NoPeer() throws {
        var device = try SimulatedDevice(scenario: still([]))
        bringUp(&device)
        let out = device.advance(to: 0.4)
        let v11 = "00 00 00 00 01 00 00 00 00 c8 00 00 00 01 00 00 00 00 00 00 00 00 00 00 01 01 00 21 ff ff ff 00 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 00 00 00 00"
        #expect(out == [.write(hex("62 00 00 38 " + v11)), .write(hex("62 00 00 38 01" + v11.dropFirst(2)))])
    }

    @Test("an out-of-range window gives V11-shaped measurements, then the peer is back")
    func outOfRange() throws {
        let scenario = Scenario(seed: 1, noise: .none, peers: [
            PeerTrack(address: 1, path: [.init(t: 0, distance: 2)], outOfRange: [TimeWindow(from: 1, to: 2)]),
        ])
        var device = try SimulatedDevice(scenario: scenario)
        bringUp(&device)
        let infos = sessionInfos(messages(device.advance(to: 3)))
        for info in infos {
            let m = info.twoWayMeasurements[0]
            let t = Double(info.sequenceNumber + 1) * 0.2
            if t >= 1 && t < 2 - 1e-9 {
                #expect(m.status == .rangingRxTimeout)
                #expect(m.nlosRaw == 0xFF)
                #expect(m.distanceRaw == 0xFFFF)
                #expect(m.slotIndex == 2)
                #expect(m.aoaAzimuthFOM == 0 && m.aoaElevationFOM == 0)
            } else {
                #expect(m.status == .ok)
                #expect(m.distanceRaw == 200)
            }
        }
        #expect(infos.count == 15)
    }

    @Test("no AoA on the device: angles 0 and FOM 0 even when the scenario has angles")
    func noAoA() throws {
        var device = try SimulatedDevice(scenario: still([(1, 2)], angles: (30, 10), aoa: false))
        bringUp(&device)
        for m in sessionInfos(messages(device.advance(to: 1))).flatMap(\.twoWayMeasurements) {
            #expect(m.aoaAzimuth.raw == 0 && m.aoaElevation.raw == 0)
            #expect(m.aoaAzimuthFOM == 0 && m.aoaElevationFOM == 0)
            #expect(m.aoaDestinationAzimuthFOM == 0 && m.aoaDestinationElevationFOM == 0)
        }
    }

    @Test("with AoA and scenario angles: Q9.7 angles with FOM > 0; without angles in the path: FOM 0")
    func withAoA() throws {
        var device = try SimulatedDevice(scenario: still([(1, 2)], angles: (30, -10), aoa: true))
        bringUp(&device)
        let m = try #require(sessionInfos(messages(device.advance(to: 0.2))).first?.twoWayMeasurements.first)
        #expect(m.aoaAzimuth.raw == 30 * 128)
        #expect(m.aoaElevation.raw == -10 * 128)
        #expect(m.aoaAzimuthFOM > 0 && m.aoaElevationFOM > 0)

        var noAngles = try SimulatedDevice(scenario: still([(1, 2)], aoa: true))
        bringUp(&noAngles)
        let n = try #require(sessionInfos(messages(noAngles.advance(to: 0.2))).first?.twoWayMeasurements.first)
        #expect(n.aoaAzimuthFOM == 0 && n.aoaAzimuth.raw == 0)

        var notRequested = try SimulatedDevice(scenario: still([(1, 2)], angles: (30, -10), aoa: true))
        bringUp(&notRequested, extra: [.aoaResultRequest(.none)])
        let r = try #require(sessionInfos(messages(notRequested.advance(to: 0.2))).first?.twoWayMeasurements.first)
        #expect(r.aoaAzimuthFOM == 0)
    }

    @Test("a distance pushed below zero by noise is reported as 0x1B with its absolute value")
    func negativeDistance() throws {
        var device = try SimulatedDevice(scenario: still([(1, 0.02)], noise: ScenarioNoise(sigma: 0.1, angleSigma: 0, dropoutProbability: 0)))
        bringUp(&device)
        let ms = sessionInfos(messages(device.advance(to: 20))).flatMap(\.twoWayMeasurements)
        let negative = ms.filter { $0.status == .okNegativeDistanceReport }
        #expect(!negative.isEmpty)
        #expect(ms.allSatisfy { $0.status == .ok || $0.status == .okNegativeDistanceReport })
        #expect(negative.allSatisfy { $0.distanceRaw < 100 && $0.distanceCentimeters! <= 0 })
    }

    @Test("NLoS window: flag 1 and the distance biased long")
    func nlos() throws {
        let scenario = Scenario(noise: .none, peers: [
            PeerTrack(address: 1, path: [.init(t: 0, distance: 2)], nlos: [NLoSWindow(from: 0, to: 10, bias: 0.5)]),
        ])
        var device = try SimulatedDevice(scenario: scenario)
        bringUp(&device)
        let m = try #require(sessionInfos(messages(device.advance(to: 0.2))).first?.twoWayMeasurements.first)
        #expect(m.nlosRaw == 1)
        #expect(m.distanceRaw == 250)
    }

    @Test("RSSI is 0 unless RSSI_REPORTING is on")
    func rssi() throws {
        var device = try SimulatedDevice(scenario: still([(1, 2)]))
        bringUp(&device, extra: [.rssiReporting(true)])
        let m = try #require(sessionInfos(messages(device.advance(to: 0.2))).first?.twoWayMeasurements.first)
        #expect(m.rssiDBm.map { $0 < -40 && $0 > -60 } == true)
    }

    @Test("paths are interpolated between keyframes")
    func interpolation() throws {
        let scenario = Scenario(noise: .none, peers: [
            PeerTrack(address: 1, path: [.init(t: 0, distance: 8), .init(t: 4, distance: 0.4)]),
        ])
        var device = try SimulatedDevice(scenario: scenario)
        bringUp(&device)
        let infos = sessionInfos(messages(device.advance(to: 6)))
        #expect(infos[9].twoWayMeasurements[0].distanceRaw == 420)   // t = 2 s: half way
        #expect(infos.last?.twoWayMeasurements[0].distanceRaw == 40)  // held after the last keyframe
    }

    @Test("same seed → identical bytes; another seed → different bytes")
    func determinism() throws {
        func run(_ scenario: Scenario) throws -> [DeviceOutput] {
            var device = try SimulatedDevice(scenario: scenario)
            var out: [DeviceOutput] = []
            out += device.receive(wire(.coreDeviceReset()), at: 0)
            out += device.receive(wire(.sessionInit(sessionID: 7)), at: 0.01)
            out += device.receive(wire(.sessionSetAppConfig(sessionHandle: 1, AppConfigParameter.dsTWR(role: .controller, ownAddress: 0, peers: [1, 2]))), at: 0.02)
            out += device.receive(wire(.sessionStart(sessionHandle: 1)), at: 0.03)
            var t = 0.03
            while t < 30 { t += 0.37; out += device.advance(to: t) }
            return out
        }
        let a = try run(.withAngles), b = try run(.withAngles)
        #expect(a == b)
        var other = Scenario.withAngles
        other.seed = 8
        #expect(try run(other) != a)
    }

    @Test("multicast add and delete change the measured peers")
    func multicast() throws {
        var device = try SimulatedDevice(scenario: still([(1, 1), (2, 2), (3, 3)]))
        let handle = bringUp(&device, peers: [1, 2])
        #expect(sessionInfos(messages(device.advance(to: 0.2))).first?.twoWayMeasurements.map(\.macAddress) == [.short(1), .short(2)])

        let add = messages(device.receive(wire(.sessionUpdateControllerMulticastList(
            sessionHandle: handle, action: .add, controlees: [Controlee(shortAddress: 3), Controlee(shortAddress: 2)])), at: 0.25))
        #expect(add == [
            .response(.sessionUpdateControllerMulticastList(status: .ok, controlees: [
                ControleeStatus(shortAddress: 2, status: MulticastUpdateStatus(rawValue: 0x08)),
            ])),
            .notification(.sessionUpdateControllerMulticastList(MulticastListUpdate(sessionHandle: handle, controlees: [
                ControleeStatus(shortAddress: 3, status: .ok), ControleeStatus(shortAddress: 2, status: MulticastUpdateStatus(rawValue: 0x08)),
            ]))),
        ])
        let afterAdd = try #require(sessionInfos(messages(device.advance(to: 0.4))).first)
        #expect(afterAdd.twoWayMeasurements.map(\.macAddress) == [.short(1), .short(2), .short(3)])
        #expect(afterAdd.twoWayMeasurements.map(\.distanceRaw) == [100, 200, 300])

        let delete = messages(device.receive(wire(.sessionUpdateControllerMulticastList(
            sessionHandle: handle, action: .delete, controlees: [Controlee(shortAddress: 1)])), at: 0.45))
        #expect(responses(delete) == [.sessionUpdateControllerMulticastList(status: .ok, controlees: [])])
        #expect(sessionInfos(messages(device.advance(to: 0.6))).first?.twoWayMeasurements.map(\.macAddress) == [.short(2), .short(3)])
    }

    @Test("a unicast session has no multicast list")
    func multicastOnUnicast() throws {
        var device = try SimulatedDevice(scenario: still([(1, 1)]))
        let handle = bringUp(&device, peers: [1])
        let list = messages(device.receive(wire(.sessionUpdateControllerMulticastList(
            sessionHandle: handle, action: .add, controlees: [Controlee(shortAddress: 3)])), at: 0.1))
        #expect(responses(list).first?.status == .rejected)
    }

    @Test("a ranging interval override sets the cadence and the reported interval")
    func intervalOverride() throws {
        var scenario = still([(1, 1)])
        scenario.device.rangingInterval = 0.1
        var device = try SimulatedDevice(scenario: scenario)
        bringUp(&device)
        let infos = sessionInfos(messages(device.advance(to: 1)))
        #expect(infos.count == 10)
        #expect(infos.allSatisfy { $0.currentRangingInterval == 100 })
    }

    @Test("eight peers need more than 255 bytes: the NTF is segmented and still decodes")
    func segmented() throws {
        let peers = (1...8).map { (UInt16($0), Double($0)) }
        var device = try SimulatedDevice(scenario: still(peers))
        bringUp(&device, peers: peers.map(\.0))
        let out = device.advance(to: 0.2)
        #expect(out.count == 2)   // two packets, two writes
        #expect(sessionInfos(messages(out)).first?.twoWayMeasurements.count == 8)
    }
}
