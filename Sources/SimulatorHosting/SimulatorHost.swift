import Vocabulary
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import EventLoop
import DeviceLink
import FoundationEssentials
import Simulator
import Synchronization
import UCI

/// Runs a `SimulatedDevice` behind a real pseudo-terminal, so that everything above the byte
/// transport — the terminal transport, the reassembler, the session — is the code that runs in
/// production (`uwb2mqtt simulate`, `uwb2mqtt run --simulate`, and the tests).
///
/// Its thread owns the device and the terminal. An unplug fault closes the terminal (clients
/// see a hangup, as with USB) and opens a new one after the fault's duration; `linkPath`, when
/// given, always points at the current terminal so that clients can find it again.
public final class SimulatorHost: Sendable {
    /// The current slave path (`/dev/pts/N`); changes after an unplug.
    public var slavePath: String { current.withLock { $0 } }
    public let linkPath: String?
    /// The commands the device received, decoded, oldest first: what tests assert on. Only the
    /// most recent `commandLogCapacity` are kept.
    public var commandsSeen: [UCICommand] { seen.withLock { $0 } }
    /// How many received commands `commandsSeen` keeps. Bounded because the host also runs for
    /// as long as `uwb2mqtt run --simulate` or `uwb2mqtt simulate` does: every re-plug brings
    /// six more bring-up commands (~1.5 KiB), which an unbounded log kept forever.
    public let commandLogCapacity: Int

    private let scenario: Scenario
    /// The monotonic time at which the scene began (see `init`).
    private let sceneStart: Double

    /// The scene's time at the monotonic time `monotonic`: what the device simulates then, for
    /// those who play the peers' apps beside it.
    public func sceneTime(at monotonic: Double) -> Double { scenario.sceneTime(monotonic - sceneStart) }

    private let current: Mutex<String>
    private let seen = Mutex<[UCICommand]>([])
    /// What tests ask of the device, handed to its thread at its next wake-up (≤ 50 ms).
    private let requests = Mutex<[Request]>([])

    private enum Request: Sendable {
        case startPhone(PhoneRangingParameters)
        case startIPhone(IPhoneNearbySession)
        case unplug(seconds: Double)
    }
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let log: @Sendable (String) -> Void

    /// Opens the terminal at once (so that `slavePath` is valid on return) and starts the device.
    ///
    /// `gatewayPosition` (the config's `gateway.position`) is where this simulated gateway stands;
    /// a scenario with site-frame paths needs it and fails here without it. The device runs on
    /// the monotonic clock; its scene start is computed once from the monotonic and wall clocks
    /// (`Scenario.startTime(monotonicNow:wallNow:)`): now for `clock: start`, and
    /// `monotonicNow - (wallNow mod duration)` for `clock: wall`, so that simulators in separate
    /// processes agree on the scene time without the device ever reading a clock.
    ///
    /// `commandLogCapacity` bounds `commandsSeen` (a negative value counts as 0); the default
    /// holds ten bring-ups, more than any test looks at.
    public init(scenario: Scenario, linkPath: String? = nil, gatewayPosition: SitePoint? = nil,
                commandLogCapacity: Int = 64, log: @escaping @Sendable (String) -> Void = { _ in }) throws {
        let monotonicNow = Clocks.monotonic()
        let sceneStart = scenario.startTime(monotonicNow: monotonicNow, wallNow: Clocks.wall())
        self.scenario = scenario
        self.sceneStart = sceneStart
        let device = try SimulatedDevice(
            scenario: scenario, startTime: sceneStart,
            gatewayPosition: gatewayPosition.map { SitePoint(x: $0.x, y: $0.y, z: $0.z) }, poweredOnAt: monotonicNow)
        let terminal = try PseudoTerminal()
        if let linkPath { try terminal.link(at: linkPath) }
        self.linkPath = linkPath
        self.commandLogCapacity = max(0, commandLogCapacity)
        self.log = log
        current = Mutex(terminal.slavePath)
        DetachedThread.start(name: "uwb2mqtt-simulator") { [self] in
            var loop = Loop(host: self, device: device, terminal: terminal)
            loop.run()
            finished.signal()
        }
    }

    /// Stops the device and closes its terminal (clients see a hangup).
    public func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        _ = finished.wait(timeout: .now() + 5)
    }

    /// Starts a simulated phone with what its app learned from the gateway (a new exchange):
    /// what a test does with a `phone_session` answer. A refusal is logged.
    public func startPhone(_ parameters: PhoneRangingParameters) {
        requests.withLock { $0.append(.startPhone(parameters)) }
    }

    /// Starts a simulated iPhone with the NISession its app ran on the gateway's accessory
    /// configuration data (a new run restarts it): what a test does with a `phone_session`
    /// answer for `"platform": "ios"`. A refusal is logged.
    public func startIPhone(_ session: IPhoneNearbySession) {
        requests.withLock { $0.append(.startIPhone(session)) }
    }

    /// Unplugs the simulated device for `seconds`, now rather than at a scene time.
    public func unplug(seconds: Double) {
        requests.withLock { $0.append(.unplug(seconds: seconds)) }
    }

    private struct Loop {
        let host: SimulatorHost
        var device: SimulatedDevice
        var terminal: PseudoTerminal?
        var observer = Reassembler(accepting: Reassembler.deviceSide)

        init(host: SimulatorHost, device: SimulatedDevice, terminal: PseudoTerminal) {
            self.host = host
            self.device = device
            self.terminal = terminal
        }

        mutating func run() {
            while !host.stopping.load(ordering: .relaxed) {
                let now = Clocks.monotonic()
                let wait = max(0.001, min(0.05, (device.nextEventTime ?? now + 0.05) - now))
                var outputs: [DeviceOutput] = []
                if let terminal {
                    do {
                        let bytes = try terminal.read(maximum: 4096, timeout: .milliseconds(Int(wait * 1000)))
                        if !bytes.isEmpty {
                            observe(bytes)
                            outputs += device.receive(bytes, at: Clocks.monotonic())
                        }
                    } catch {
                        host.log("simulator terminal failed: \(error)")
                        return
                    }
                } else {
                    Clocks.sleep(wait)
                }
                outputs += device.advance(to: Clocks.monotonic())
                for request in host.requests.withLock({ requests in defer { requests.removeAll() }; return requests }) {
                    switch request {
                    case let .startPhone(parameters):
                        do { outputs += try device.startPhone(parameters, at: Clocks.monotonic()) } catch { host.log("simulated phone: \(error)") }
                    case let .startIPhone(session):
                        do { outputs += try device.startIPhone(session, at: Clocks.monotonic()) } catch { host.log("simulated iPhone: \(error)") }
                    case let .unplug(seconds):
                        outputs += device.unplug(for: seconds, at: Clocks.monotonic())
                    }
                }
                if !perform(outputs) { break }
            }
            terminal?.close()
        }

        mutating func observe(_ bytes: [UInt8]) {
            for case let .message(raw) in observer.feed(bytes) {
                if case let .command(command)? = try? UCIMessage(decoding: raw) {
                    let capacity = host.commandLogCapacity
                    host.seen.withLock { seen in
                        seen.append(command)
                        if seen.count > capacity { seen.removeFirst(seen.count - capacity) }
                    }
                }
            }
        }

        /// Carries out the device's outputs; false when the scenario ended.
        mutating func perform(_ outputs: [DeviceOutput]) -> Bool {
            for output in outputs {
                switch output {
                case let .write(bytes):
                    try? terminal?.write(bytes)
                case let .pause(seconds):
                    Clocks.sleep(min(seconds, 1))
                case let .unplug(seconds):
                    host.log("simulated unplug for \(seconds) s")
                    terminal?.close()
                    terminal = nil
                    let until = Clocks.monotonic() + seconds
                    while Clocks.monotonic() < until, !host.stopping.load(ordering: .relaxed) {
                        Clocks.sleep(0.02)
                    }
                    _ = device.advance(to: Clocks.monotonic())
                    do {
                        let fresh = try PseudoTerminal()
                        if let link = host.linkPath { try fresh.link(at: link) }
                        host.current.withLock { $0 = fresh.slavePath }
                        terminal = fresh
                        observer = Reassembler(accepting: Reassembler.deviceSide)
                        host.log("simulated re-plug at \(fresh.slavePath)")
                    } catch {
                        host.log("simulator cannot open a new terminal: \(error)")
                        return false
                    }
                case .scenarioEnded:
                    host.log("scenario ended")
                    return false
                case let .diagnostic(line):
                    host.log("simulated " + line)
                }
            }
            return true
        }
    }
}
