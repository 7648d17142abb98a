import SimulatorHosting
import DeviceLink
import EventLoop
import Foundation
import Gateway
import Simulator
import Synchronization
import Testing
import UCI

/// The simulator host's command log stays bounded across re-plugs: it runs as long as
/// `uwb2mqtt run --simulate` does, and every re-plug brings a full bring-up again: unbounded, it
/// would grow by ~1.5 KiB per cycle, as the unplug soak measures.
@Suite struct SimulatorCommandLogTests {
    @Test func theCommandLogKeepsOnlyTheMostRecentCommandsAcrossReplugs() async throws {
        let directory = NSTemporaryDirectory() + "uwb2mqtt-commandlog-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scenario = Scenario(
            name: "replugs", seed: 7, device: ScenarioDevice(hasAoA: false, rangingInterval: 0.1), noise: .none,
            peers: [PeerTrack(address: 1, name: "tag", path: [.init(t: 0, distance: 2)])])
        let host = try SimulatorHost(scenario: scenario, linkPath: directory + "/dwm3001c", commandLogCapacity: 8)
        defer { host.stop() }
        var timing = DeviceSession.Timing()
        timing.backoffInitial = 0.2
        let configuration = RangingSessionConfiguration(peers: [1])
        let rangingCount = Mutex(0)
        let thread = try EventLoopThread()
        defer { thread.stop() }
        let port = directory + "/dwm3001c"
        let service = thread.run { loop in
            let service = DeviceLinkService(loop: loop, port: port, configuration: configuration, timing: timing) { event in
                if case .stateChanged(.ranging, _) = event { rangingCount.withLock { $0 += 1 } }
            }
            service.start()
            return LoopBound(service)
        }
        defer { thread.run { _ in service.value.stop() } }

        // Three bring-ups of six commands each go through the device: 18 received, 8 kept. Each
        // unplug waits for the ranging it ends, so that no bring-up is cut short however loaded
        // the machine.
        for count in 1...2 {
            await eventually("ranging number \(count)", timeout: 60) { rangingCount.withLock { $0 } >= count }
            host.unplug(seconds: 0.1)
        }
        await eventually("ranging after the second re-plug", timeout: 60) { rangingCount.withLock { $0 } >= 3 }
        let bringUp: [UCICommand] = [
            .coreDeviceReset(resetConfig: 0), .coreGetDeviceInfo, .coreGetCapsInfo,
            .sessionInit(sessionID: configuration.sessionID, sessionType: .firaRangingSession),
            .sessionSetAppConfig(sessionHandle: 1, configuration.appConfiguration),
            .sessionStart(sessionHandle: 1),
        ]
        #expect(host.commandLogCapacity == 8)
        #expect(host.commandsSeen == Array(bringUp.suffix(2)) + bringUp)
    }

    @Test func aNegativeCapacityKeepsNothing() throws {
        let host = try SimulatorHost(scenario: .default, commandLogCapacity: -1)
        defer { host.stop() }
        #expect(host.commandLogCapacity == 0)
        #expect(host.commandsSeen.isEmpty)
    }
}

/// A loop-bound object carried out of `EventLoopThread.run`, to be touched only inside later
/// `run` calls on the same thread.
struct LoopBound<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
