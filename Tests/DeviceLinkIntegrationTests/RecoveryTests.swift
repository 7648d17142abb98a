import SimulatorHosting
import DeviceLink
import Foundation
import Simulator
import Testing
import UCI

/// The device link through the real path — simulator on a real pseudo-terminal, the real
/// `DeviceLinkService` and `DeviceSession` — reaching ranging and getting back to it by itself.
@Suite(.serialized, .timeLimit(.minutes(2))) struct RecoveryTests {
    @Test func bringUpReachesRangingWithTheExpectedCommands() throws {
        let h = try LinkHarness(scenario: steadyScenario())
        defer { h.stop() }
        h.wait("ranging") { $0.states.contains(.ranging) }
        h.waitForMoreRounds(5)
        #expect(h.simulator.commandsSeen == bringUpCommands(handle: 1))
        #expect(h.states.prefix(3) == [.opening, .initializing, .ranging])
        let rounds = h.rounds
        // Sequence numbers count up without a gap: no valid notification was lost.
        #expect(zip(rounds.dropFirst(), rounds).allSatisfy { $0.sequenceNumber == $1.sequenceNumber + 1 })
        let m = try #require(rounds.last?.twoWayMeasurements.first)
        #expect(m.macAddress == .short(1))
        #expect(m.distanceCentimeters == 200)
        #expect(m.aoaAzimuthFOM == 0) // a DWM3001C gives no angle
        #expect(h.all.contains { if case .deviceIdentified = $0 { true } else { false } })
    }

    @Test func garbageAndSplitWritesLoseNoNotification() throws {
        let h = try LinkHarness(scenario: steadyScenario([
            ScenarioFault(at: 1.0, .garbage(bytes: 40)),
            ScenarioFault(at: 1.2, .splitWrites(until: 2.0, maxChunk: 3, gap: 0.002)),
            ScenarioFault(at: 2.2, .garbage(bytes: 7)),
        ]))
        defer { h.stop() }
        h.wait("ranging past the faults", timeout: 15) { $0.rounds.count >= 30 }
        let sequence = h.rounds.map(\.sequenceNumber)
        #expect(zip(sequence.dropFirst(), sequence).allSatisfy { $0 == $1 + 1 }, "gaps in \(sequence)")
        #expect(h.logs.contains { $0.contains("not a UCI packet") })
        #expect(h.simulator.commandsSeen == bringUpCommands(handle: 1))
    }

    @Test func aDeviceResetIsFollowedByAFullReinitialisation() throws {
        let h = try LinkHarness(scenario: steadyScenario([ScenarioFault(at: 1.0, .deviceReset)]))
        defer { h.stop() }
        h.wait("ranging twice", timeout: 15) { $0.states.filter { $0 == .ranging }.count >= 2 }
        h.waitForMoreRounds(3)
        // The device hands out handle 1 again after its reset.
        #expect(h.simulator.commandsSeen == bringUpCommands(handle: 1) + bringUpCommands(handle: 1))
        #expect(h.logs.contains("the device reset itself; initialising it again"))
    }

    @Test func aDeviceErrorIsFollowedByAReset() throws {
        let h = try LinkHarness(scenario: steadyScenario([ScenarioFault(at: 1.0, .deviceError)]))
        defer { h.stop() }
        h.wait("ranging twice", timeout: 15) { $0.states.filter { $0 == .ranging }.count >= 2 }
        h.waitForMoreRounds(3)
        let seen = h.simulator.commandsSeen
        #expect(Array(seen.prefix(6)) == bringUpCommands(handle: 1))
        #expect(seen.dropFirst(6).first == .coreDeviceReset(resetConfig: 0))
        #expect(h.logs.contains { $0.contains("DEVICE_STATE_ERROR") })
    }

    @Test func aSessionStoppedByTheDeviceIsRestartedAndTheReasonLogged() throws {
        let h = try LinkHarness(scenario: steadyScenario([ScenarioFault(at: 6.0, .sessionStopped(reason: .maxRangingRoundRetryCountReached))]))
        defer { h.stop() }
        h.wait("session stopped", timeout: 15) { h in h.all.contains { if case .sessionStopped = $0 { true } else { false } } }
        h.waitForMoreRounds(3)
        #expect(h.logs.contains("the device stopped the session: MAX_RANGING_ROUND_RETRY_COUNT_REACHED"))
        // Restarted with SESSION_START alone, no re-initialisation.
        #expect(h.simulator.commandsSeen == bringUpCommands(handle: 1) + [.sessionStart(sessionHandle: 1)])
    }

    @Test func anUnplugOfAFewSecondsEndsInRangingAgain() throws {
        let h = try LinkHarness(scenario: steadyScenario([ScenarioFault(at: 1.0, .unplug(duration: 2))]))
        defer { h.stop() }
        h.wait("absent", timeout: 10) { $0.states.contains { $0.name == "absent" } }
        h.wait("ranging again", timeout: 20) { $0.states.filter { $0 == .ranging }.count >= 2 }
        h.waitForMoreRounds(3)
        // After the re-plug the device is fresh: the whole bring-up again.
        #expect(h.simulator.commandsSeen.suffix(6) == bringUpCommands(handle: 1)[...])
        #expect(h.logs.contains { $0.hasPrefix("device disconnected") })
    }

    @Test func aRejectedConfigurationNamesTheParameterAndIsRetried() throws {
        // Channel 6 passes our types but not the DWM3001C (5 or 9 only).
        var configuration = RangingSessionConfiguration(peers: [1])
        configuration.channel = 6
        let h = try LinkHarness(scenario: steadyScenario(), configuration: configuration)
        defer { h.stop() }
        h.wait("the error", timeout: 10) { $0.states.contains { $0.message?.contains("CHANNEL_NUMBER") == true } }
        h.wait("a retry", timeout: 10) { $0.simulator.commandsSeen.filter { $0 == .coreDeviceReset(resetConfig: 0) }.count >= 2 }
        // A configuration fixed at run time gets it ranging.
        configuration.channel = 9
        h.link.send(.reconfigure(configuration))
        h.wait("ranging", timeout: 10) { $0.states.contains(.ranging) }
    }

    @Test func peersAddedAtRunTimeUseTheMulticastList() throws {
        var scenario = steadyScenario()
        scenario.peers.append(PeerTrack(address: 2, path: [.init(t: 0, distance: 3)]))
        scenario.peers.append(PeerTrack(address: 3, path: [.init(t: 0, distance: 4)]))
        let two = RangingSessionConfiguration(peers: [1, 2])
        let h = try LinkHarness(scenario: scenario, configuration: two)
        defer { h.stop() }
        h.wait("ranging") { $0.states.contains(.ranging) }
        h.link.send(.reconfigure(RangingSessionConfiguration(peers: [1, 2, 3])))
        h.wait("three peers measured", timeout: 10) { $0.rounds.last?.twoWayMeasurements.count == 3 }
        #expect(h.simulator.commandsSeen == bringUpCommands(handle: 1, configuration: two) + [
            .sessionUpdateControllerMulticastList(sessionHandle: 1, action: .add, controlees: [Controlee(shortAddress: 3)]),
        ])
    }
}
