import SimulatorHosting
import Service
import Gateway
import EventLoop
import DeviceLink
import FoundationEssentials
import Recording
#if canImport(Glibc)
import Glibc
#endif

/// `uwb2mqtt record --out FILE [--config FILE] [--simulate [SCENARIO]]`: runs the device session
/// and writes every UCI packet received, with its receive time, to FILE until Ctrl-C. Needs no
/// broker.
public struct RecordCommand: Command {
    static let out = Option.value("--out", "FILE", required: true,
                                  help: "the recording to write (replay it with uwb2mqtt replay FILE)")

    static let declaration = CommandDeclaration(
        name: "record", abstract: "record every UCI packet received, with its time",
        discussion: """
        Brings the device up as the agent does (the device section of the configuration) and writes
        every UCI packet it sends, with its receive time, to FILE, until Ctrl-C. The format is
        append-only: a crash loses at most the last packets, and a truncated file still replays
        (uwb2mqtt replay FILE). No broker is needed.
        """,
        arguments: [.option(out), .option(.agentConfiguration), .option(.simulate)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "after Ctrl-C"),
                       ExitStatus.Meaning(ExitStatus.failure, "for a bad configuration or an unwritable FILE"),
                       ExitStatus.Meaning(ExitStatus.unreachable, "when the device cannot be reached within 10 seconds")])

    var out: String
    var configPath: String?
    var simulates: Bool
    /// The scenario to simulate (nil: the default one) when `simulates`.
    var scenarioName: String?

    init(_ arguments: ParsedArguments) {
        // The parser has checked that the required option is there.
        out = arguments.value(Self.out)!
        configPath = arguments.value(.agentConfiguration)
        simulates = arguments.isSet(.simulate)
        scenarioName = arguments.value(.simulate)
    }

    func run(_ console: Console) -> Int32 {
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
            return ExitStatus.failure
        }
        var configuration: AgentConfiguration
        var simulator: SimulatorHost?
        do {
            let scenario = simulates ? try ScenarioLoading.load(scenarioName) : nil
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
            return ExitStatus.failure
        }
        defer { simulator?.stop() }
        let recorder: PacketRecorder
        do {
            recorder = try PacketRecorder(path: out, configuration: configuration, rotation: .none)
        } catch {
            logger.error("cannot record to \(out): \(error)")
            return ExitStatus.failure
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
        var status = ExitStatus.success
        if !loop.run(until: { stopRequested }, deadline: Clocks.monotonic() + 10) {
            if reached {
                logger.info("recording to \(out); Ctrl-C stops")
                loop.run(until: { stopRequested })
            } else {
                logger.error("the device did not answer within 10 s; nothing recorded")
                status = ExitStatus.unreachable
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
