import SimulatorHosting
import DeviceLink
import Foundation
import Gateway
import Simulator
import Synchronization
import Testing
import UCI
#if canImport(Glibc)
import Glibc
#endif

/// A ser2net-style bridge: a loopback TCP listener relaying bytes to and from the simulator's
/// pseudo-terminal, so that `tcp://host:port` is tested against the same simulated device.
final class TCPSerialBridge: Sendable {
    let port: UInt16
    private let listener: Int32
    private let stopping = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(devicePath: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound else { throw TransportError.io("cannot listen on loopback") }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let terminal = try TerminalTransport(path: devicePath)
        Thread { [self] in
            var pollfd = Glibc.pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            while !stopping.load(ordering: .relaxed) && poll(&pollfd, 1, 20) == 0 {}
            let client = accept(listener, nil, nil)
            if client >= 0 {
                relay(client: client, terminal: terminal)
                close(client)
            }
            terminal.close()
            done.signal()
        }.start()
    }

    private func relay(client: Int32, terminal: TerminalTransport) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopping.load(ordering: .relaxed) {
            var pollfd = Glibc.pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            if poll(&pollfd, 1, 5) > 0 {
                let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, 4096, 0) }
                if n <= 0 { return }
                try? terminal.write(Array(buffer[0..<n]))
            }
            guard let bytes = try? terminal.read(maximum: 4096, timeout: .milliseconds(5)) else { return }
            if !bytes.isEmpty { _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) } }
        }
    }

    /// Once: a second `close` of the listener's number would close whatever another test's
    /// thread opened under it since (an event loop's eventfd, in one run).
    func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        _ = done.wait(timeout: .now() + 5)
        close(listener)
    }
}

@Suite(.serialized, .timeLimit(.minutes(1))) struct TCPBridgeTests {
    /// The simulator behind a bridge and a device link to it over `tcp://`, stopped in reverse.
    struct BridgedLink {
        let simulator: SimulatorHost
        let bridge: TCPSerialBridge
        let log = LinkHarness.EventLog()
        let link: LoopDeviceLink

        init() throws {
            simulator = try SimulatorHost(scenario: steadyScenario())
            bridge = try TCPSerialBridge(devicePath: simulator.slavePath)
            let log = self.log
            link = try LoopDeviceLink(port: "tcp://127.0.0.1:\(bridge.port)", configuration: RangingSessionConfiguration(peers: [1]),
                                      timing: LinkHarness.fastTiming) { log.append($0) }
        }

        func stop() {
            link.stop()
            bridge.stop()
            simulator.stop()
        }
    }

    @Test func rangingOverTCPThroughASerialBridge() throws {
        let bridged = try BridgedLink()
        defer { bridged.stop() }
        let (simulator, log) = (bridged.simulator, bridged.log)
        let deadline = Date().addingTimeInterval(10)
        func rounds() -> Int { log.all.filter { if case .measurements = $0 { true } else { false } }.count }
        while Date() < deadline, rounds() < 5 { Thread.sleep(forTimeInterval: 0.01) }
        #expect(rounds() >= 5)
        #expect(simulator.commandsSeen == bringUpCommands(handle: 1))
        #expect(log.all.contains { if case let .stateChanged(.ranging, port) = $0 { port.hasPrefix("tcp://") } else { false } })
    }

    /// The bridge closes the connection while the device ranges: the device is absent, which the
    /// agent turns into `signal_lost` with cause `device_absent`, and no session stop with a
    /// made-up reason code comes before it (it came as 0xFF, which reads RDS_BUSY).
    @Test func aClosedConnectionIsAbsentNotAStoppedSession() throws {
        let bridged = try BridgedLink()
        defer { bridged.stop() }
        let (bridge, log) = (bridged.bridge, bridged.log)
        func states() -> [DeviceLinkState] { log.all.compactMap { if case let .stateChanged(state, _) = $0 { state } else { nil } } }
        var deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !states().contains(.ranging) { Thread.sleep(forTimeInterval: 0.01) }
        #expect(states().contains(.ranging))
        bridge.stop()
        deadline = Date().addingTimeInterval(10)
        while Date() < deadline, states().last?.name != "absent" { Thread.sleep(forTimeInterval: 0.01) }
        #expect(states().last?.name == "absent", "\(states())")
        #expect(!log.all.contains { if case .sessionStopped = $0 { true } else { false } }, "\(log.all)")
    }

    /// Nothing listens at the address (a bridge not started yet, a wrong port): the device is
    /// absent, as an unplugged board is, with the reason, and the link keeps trying.
    @Test func anEndpointNobodyListensOnIsAbsent() throws {
        // A port that was free a moment ago and is closed now.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        close(fd)
        let port = UInt16(bigEndian: address.sin_port)
        let log = LinkHarness.EventLog()
        let link = try LoopDeviceLink(port: "tcp://127.0.0.1:\(port)", configuration: RangingSessionConfiguration(peers: [1]),
                                      timing: LinkHarness.fastTiming) { log.append($0) }
        defer { link.stop() }
        func states() -> [DeviceLinkState] { log.all.compactMap { if case let .stateChanged(state, _) = $0 { state } else { nil } } }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !states().contains(where: { $0.name == "absent" && $0.message != nil }) { Thread.sleep(forTimeInterval: 0.01) }
        let absent = states().first { $0.name == "absent" && $0.message != nil }
        #expect(absent?.message?.contains("connection refused") == true, "\(states())")
        #expect(!states().contains { $0.name == "error" })
    }
}
