import SimulatorHosting
import DeviceLink
import EventLoop
import Foundation
import Gateway
import Simulator
import Synchronization
import Testing
import UCI

/// A simulated DWM3001C on a real pseudo-terminal (behind a symlink, as udev would make it) and
/// the real `DeviceLinkService` talking to it, on an event loop of its own. Collects what the
/// service reports.
final class LinkHarness: Sendable {
    let simulator: SimulatorHost
    let link: LoopDeviceLink
    let directory: String
    private let events = EventLog()

    final class EventLog: Sendable {
        let list = Mutex<[DeviceReport]>([])
        func append(_ event: DeviceReport) { list.withLock { $0.append(event) } }
        var all: [DeviceReport] { list.withLock { $0 } }
    }

    init(scenario: Scenario, configuration: RangingSessionConfiguration = RangingSessionConfiguration(peers: [1]),
         timing: DeviceSession.Timing = LinkHarness.fastTiming, port: String? = nil) throws {
        directory = NSTemporaryDirectory() + "uwb2mqtt-link-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        simulator = try SimulatorHost(scenario: scenario, linkPath: directory + "/dwm3001c")
        let sink = events
        link = try LoopDeviceLink(port: port ?? directory + "/dwm3001c", configuration: configuration, timing: timing) { event in
            sink.append(event)
        }
    }

    static var fastTiming: DeviceSession.Timing {
        var timing = DeviceSession.Timing()
        timing.commandTimeout = 0.5
        timing.backoffInitial = 0.2
        timing.backoffMaximum = 1
        return timing
    }

    func stop() {
        link.stop()
        simulator.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var all: [DeviceReport] { events.all }

    var states: [DeviceLinkState] {
        all.compactMap { if case let .stateChanged(state, _) = $0 { state } else { nil } }
    }

    var rounds: [SessionInfo] {
        all.compactMap { if case let .measurements(info, _, _, _) = $0 { info } else { nil } }
    }

    var logs: [String] {
        all.compactMap { if case let .log(_, text) = $0 { text } else { nil } }
    }

    /// Waits until `condition` holds, polling; fails the test with `what` after `timeout`.
    @discardableResult
    func wait(_ what: String, timeout: Double = 10, _ condition: (LinkHarness) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(self) { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        Issue.record("timed out after \(timeout) s waiting for \(what); states \(states), logs \(logs.suffix(8))")
        return false
    }

    /// Waits for `count` more ranging rounds than there are now.
    func waitForMoreRounds(_ count: Int, timeout: Double = 10) {
        let start = rounds.count
        wait("\(count) more ranging rounds", timeout: timeout) { $0.rounds.count >= start + count }
    }
}

/// A tag that sits still at `distance` metres.
func steadyScenario(_ faults: [ScenarioFault] = [], distance: Double = 2, interval: Double = 0.1) -> Scenario {
    Scenario(name: "test", seed: 7, device: ScenarioDevice(hasAoA: false, rangingInterval: interval), noise: .none,
             peers: [PeerTrack(address: 1, name: "tag", path: [.init(t: 0, distance: distance)])], faults: faults)
}

/// The commands of a full bring-up, for a device that hands out `handle`.
func bringUpCommands(handle: UInt32, configuration: RangingSessionConfiguration = RangingSessionConfiguration(peers: [1])) -> [UCICommand] {
    [.coreDeviceReset(resetConfig: 0), .coreGetDeviceInfo, .coreGetCapsInfo,
     .sessionInit(sessionID: configuration.sessionID, sessionType: .firaRangingSession),
     .sessionSetAppConfig(sessionHandle: handle, configuration.appConfiguration),
     .sessionStart(sessionHandle: handle)]
}

/// A `DeviceLinkService` on an `EventLoopThread`: started at once, requests and stop run on the
/// loop's thread.
final class LoopDeviceLink: Sendable {
    private let thread: EventLoopThread
    private let box: Box

    private final class Box: @unchecked Sendable {
        // Touched only on the loop's thread.
        var service: DeviceLinkService?
    }

    init(port: String, configuration: RangingSessionConfiguration, timing: DeviceSession.Timing,
         onEvent: @escaping @Sendable (DeviceReport) -> Void) throws {
        thread = try EventLoopThread(name: "test device loop")
        box = Box()
        let box = self.box
        thread.run { loop in
            box.service = DeviceLinkService(loop: loop, port: port, configuration: configuration, timing: timing, onEvent: onEvent)
            box.service!.start()
        }
    }

    func send(_ event: DeviceSession.Event) {
        let box = self.box
        thread.run { _ in box.service?.send(event) }
    }

    func stop() {
        let box = self.box
        thread.run { _ in
            box.service?.stop()
            box.service = nil
        }
        thread.stop()
    }
}
