import Gateway
import EventLoop
import DeviceLink
import Dispatch
import FoundationEssentials
import Recording
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `uwb2mqtt record --out FILE [--config FILE]`: runs the device session and writes every UCI
/// packet received, with its receive time, to FILE until Ctrl-C. Needs no broker.
public enum RecordCommand {
    public static let help = """
    Usage: uwb2mqtt record --out FILE [--config FILE] [--simulate [SCENARIO]]

    Brings the device up as the agent does (the device section of the configuration) and writes
    every UCI packet it sends, with its receive time, to FILE, until Ctrl-C. The format is
    append-only: a crash loses at most the last packets, and a truncated file still replays
    (uwb2mqtt replay FILE). No broker is needed. --simulate records the built-in simulator.

    Exit status: 0 after Ctrl-C, 1 bad config or an unwritable FILE, 3 when the device cannot be
    reached within 10 seconds.
    """

    public static func run(arguments: [String]) -> Int32 {
        var out: String?
        var configPath: String?
        var simulate = false
        var scenarioName: String?
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--out" where index + 1 < arguments.count: out = arguments[index + 1]; index += 1
            case "--config" where index + 1 < arguments.count: configPath = arguments[index + 1]; index += 1
            case "--simulate":
                simulate = true
                if index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") { scenarioName = arguments[index + 1]; index += 1 }
            default:
                CommandLineTool.printError("uwb2mqtt: record: unexpected argument '\(arguments[index])' (run 'uwb2mqtt help record')")
                return 2
            }
            index += 1
        }
        guard let out else {
            CommandLineTool.printError("uwb2mqtt: record: --out FILE is required (run 'uwb2mqtt help record')")
            return 2
        }
        let logger = Logger()
        // The loop and its signals before the simulator's thread exists, so that it inherits the
        // blocked mask and Ctrl-C reaches the loop.
        let loop: EventLoop
        var stopRequested = false
        let signals: SignalDescriptor
        do {
            loop = try EventLoop()
            signals = try SignalDescriptor([SIGINT, SIGTERM], on: loop) { _ in stopRequested = true }
        } catch {
            logger.error("cannot set up the event loop: \(error)")
            return 1
        }
        var configuration: AgentConfiguration
        var simulator: SimulatorHost?
        do {
            let scenario = simulate ? try ScenarioLoading.load(scenarioName) : nil
            let path = configPath ?? AgentConfiguration.defaultPath
            if configPath == nil, let scenario, !FileManager.default.fileExists(atPath: path) {
                configuration = RunCommand.defaults(for: scenario)
            } else {
                configuration = try AgentConfiguration.load(path: path)
            }
            if let scenario {
                simulator = try SimulatorHost(scenario: scenario, gatewayPosition: configuration.gateway.position)
                configuration.device.port = simulator!.slavePath
            }
        } catch {
            logger.error("\(error)")
            return 1
        }
        defer { simulator?.stop() }
        let recorder: PacketRecorder
        do {
            recorder = try PacketRecorder(path: out, configuration: configuration, rotation: .none)
        } catch {
            logger.error("cannot record to \(out): \(error)")
            return 1
        }
        var reached = false
        let service = DeviceLinkService(loop: loop, port: configuration.device.port, configuration: configuration.device.session,
                                        options: TransportOptions(baudRate: configuration.device.baud)) { event in
            switch event {
            case let .frame(raw, receivedAt, _), let .measurements(_, receivedAt, _, raw):
                do { try recorder.record(raw, receivedAt: receivedAt) } catch {
                    logger.error("recording stopped: \(error)")
                    stopRequested = true
                }
            case let .stateChanged(state, _):
                if state == .initializing || state == .ranging { reached = true }
                logger.info("device \(state)")
            case let .log(level, text): logger.log(level, text)
            default: break
            }
        }
        service.start()
        var status: Int32 = 0
        if !loop.run(until: { stopRequested }, deadline: Clocks.monotonic() + 10) {
            if reached {
                logger.info("recording to \(out); Ctrl-C stops")
                loop.run(until: { stopRequested })
            } else {
                logger.error("the device did not answer within 10 s; nothing recorded")
                status = 3
            }
        }
        // The session is stopped and deinitialised before the port closes, as the agent does.
        service.shutDown()
        _ = loop.run(until: { service.isShutDown }, deadline: Clocks.monotonic() + 2.5)
        service.stop()
        withExtendedLifetime(signals) {}
        let packets = recorder.packets
        recorder.close()
        logger.info("recorded \(packets) packets to \(out)")
        return status
    }
}

import UCI
