import Testing
import UCI
@testable import Simulator

@Suite("Fault injection")
struct FaultInjectionTests {
    /// A ranging device (one peer at 1.5 m) with `fault` in its scenario.
    func ranging(_ faults: [ScenarioFault], duration: Double? = nil) throws -> SimulatedDevice {
        var device = try SimulatedDevice(scenario: still([(1, 1.5)], faults: faults, duration: duration))
        bringUp(&device)
        return device
    }

    @Test("garbage: N bytes in one write between packets, none of them a header byte a host accepts")
    func garbage() throws {
        var device = try ranging([ScenarioFault(at: 0.5, .garbage(bytes: 20))])
        let out = device.advance(to: 1)
        let garbage = out.filter { if case let .write(bytes) = $0 { bytes.count == 20 } else { false } }
        #expect(garbage.count == 1)
        guard case let .write(bytes)? = garbage.first else { return }
        #expect(bytes.allSatisfy { !(0x40...0x7F).contains($0) && ScenarioFault.isGarbageByte($0) })
        // A host reassembler discards exactly those bytes and still gets every round.
        var host = Reassembler(accepting: Reassembler.hostSide)
        let events = host.feed(out.writtenBytes)
        let discarded = events.reduce(0) { if case let .discarded(d) = $1 { $0 + d.byteCount } else { $0 } }
        #expect(discarded == 20)
        #expect(events.filter { if case .message = $0 { true } else { false } }.count == 5)
    }

    @Test("split_writes: packets arrive in small pieces with pauses, only inside the window")
    func splitWrites() throws {
        var device = try ranging([ScenarioFault(at: 1, .splitWrites(until: 2, maxChunk: 3, gap: 0.002))])
        let before = device.advance(to: 0.9)
        #expect(before.allSatisfy { if case let .write(b) = $0 { b.count == 60 } else { false } })
        let during = device.advance(to: 1.9)
        #expect(during.contains(.pause(seconds: 0.002)))
        for case let .write(bytes) in during { #expect((1...3).contains(bytes.count)) }
        #expect(sessionInfos(messages(during)).count == 5)
        let after = device.advance(to: 2.5)
        #expect(after.allSatisfy { if case let .write(b) = $0 { b.count == 60 } else { false } })
    }

    @Test("device_reset: DEVICE_STATUS_NTF(READY), sessions gone, ranging stops")
    func deviceReset() throws {
        var device = try ranging([ScenarioFault(at: 0.5, .deviceReset)])
        let list = messages(device.advance(to: 2))
        #expect(list.map(\.name) == ["SESSION_INFO_NTF", "SESSION_INFO_NTF", "CORE_DEVICE_STATUS_NTF"])
        #expect(notifications(list).last == .coreDeviceStatus(.ready))
        #expect(device.sessionHandles.isEmpty)
        #expect(responses(messages(device.receive(wire(.sessionGetState(sessionHandle: 1)), at: 2))).first?.status == .sessionNotExist)
    }

    @Test("device_error: DEVICE_STATUS_NTF(ERROR), no rounds, commands rejected until a reset")
    func deviceError() throws {
        var device = try ranging([ScenarioFault(at: 0.5, .deviceError)])
        let list = messages(device.advance(to: 2))
        #expect(notifications(list).last == .coreDeviceStatus(.error))
        #expect(sessionInfos(list).count == 2)
        #expect(device.deviceState == .error)
        #expect(responses(messages(device.receive(wire(.sessionGetCount), at: 2))).first?.status == .rejected)
        #expect(messages(device.receive(wire(.coreDeviceReset()), at: 2)).map(\.name)
                == ["CORE_DEVICE_STATUS_NTF", "CORE_DEVICE_RESET_RSP", "CORE_DEVICE_STATUS_NTF"])
        #expect(device.deviceState == .ready)
        #expect(device.sessionHandles.isEmpty)
    }

    @Test("unplug: the control action, silence while unplugged, a fresh device after")
    func unplug() throws {
        var device = try ranging([ScenarioFault(at: 0.5, .unplug(duration: 2))])
        let out = device.advance(to: 1)
        #expect(out.last == .unplug(seconds: 2))
        #expect(!device.isPluggedIn)
        #expect(device.receive(wire(.sessionGetCount), at: 1.5).isEmpty)
        #expect(device.nextEventTime == 2.5)
        #expect(device.advance(to: 2.5).isEmpty)
        #expect(device.isPluggedIn)
        #expect(messages(device.receive(wire(.sessionGetCount), at: 2.6)) == [.response(.sessionGetCount(status: .ok, count: 0))])
    }

    @Test("session_stopped: SESSION_STATUS_NTF(IDLE, reason), DEVICE_STATUS(READY), ranging stops")
    func sessionStopped() throws {
        var device = try ranging([ScenarioFault(at: 0.5, .sessionStopped(reason: .maxRangingRoundRetryCountReached))])
        let list = messages(device.advance(to: 2))
        #expect(Array(notifications(list).suffix(2)) == [
            .sessionStatus(sessionHandle: 1, state: .idle, reason: .maxRangingRoundRetryCountReached),
            .coreDeviceStatus(.ready),
        ])
        #expect(sessionInfos(list).count == 2)
        #expect(device.sessionState(handle: 1) == .idle)
        // The host can start it again.
        #expect(responses(messages(device.receive(wire(.sessionStart(sessionHandle: 1)), at: 2))).first?.status == .ok)
    }

    @Test("looping scenarios repeat their faults every duration")
    func loopingFaults() throws {
        var device = try ranging([ScenarioFault(at: 0.5, .garbage(bytes: 7))], duration: 2)
        let out = device.advance(to: 6.4)
        let garbageWrites = out.filter { if case let .write(bytes) = $0 { bytes.count == 7 } else { false } }
        #expect(garbageWrites.count == 3)   // at 0.5, 2.5 and 4.5; 6.5 is still ahead
    }

    @Test("at_end: stop announces the end once and freezes the peers")
    func stopAtEnd() throws {
        let scenario = Scenario(duration: 1, atEnd: .stop, noise: .none, peers: [
            PeerTrack(address: 1, path: [.init(t: 0, distance: 1), .init(t: 2, distance: 3)]),
        ])
        var device = try SimulatedDevice(scenario: scenario)
        bringUp(&device)
        let out = device.advance(to: 3)
        #expect(out.filter { $0 == .scenarioEnded }.count == 1)
        #expect(sessionInfos(messages(out)).last?.twoWayMeasurements.first?.distanceRaw == 200)
    }
}
