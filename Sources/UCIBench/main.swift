// `make bench`: uwb2mqtt's figures on this machine, in one run, printed as one table and
// written as JSON (default `.build/bench.json`).
//
//   uwb2mqtt-bench [--no-python REASON] [--no-own-floor] [--quick] [--json PATH] [--agent PATH] [--python-gateway PATH]
//   uwb2mqtt-bench decode-only     the UCI decode figures only (and the in-process core)
//   uwb2mqtt-bench core-only       the in-process core figure only (for a profiler)
//   uwb2mqtt-bench journal-only    the journal figures only (64 MiB, or --journal-mib N)
//   uwb2mqtt-bench solver-only     the fuse's solver figures only (time per fix, 4/6/8 gateways)
//   uwb2mqtt-bench fuse-only [--agent PATH] [--seconds S] [--tags N]
//                                  the fuse at site scale through a real broker (FuseLoad.swift)
//   uwb2mqtt-bench instructions-only [--agent PATH] [--rate N] [--seconds S] [--profile PATH]
//                                    [--floor rendered]
//                                  the agent's instructions per notification under callgrind,
//                                  its profile kept (default .build/bench-agent.callgrind); with
//                                  --floor, the rendered floor's, of the agent's messages
//                                  recorded at that rate first
//   uwb2mqtt-bench hold [--agent PATH] [--rate N] [--seconds S] [--floor own|rendered]
//                                  the agent (or, with --floor, the forwarder of its own
//                                  messages) on the bench's load at one rate, its PID printed,
//                                  for a profiler to attach to (`perf record -p PID`)
//   uwb2mqtt-bench decode1 N       exactly N decodes of (a), no timing: for
//                                  `valgrind --tool=callgrind` (instructions per decode =
//                                  difference of two runs with different N, divided by ΔN)
//   uwb2mqtt-bench core1 N         exactly N rounds of the core (d), the same way (valgrind
//                                  3.19 reads no DWARF 5: run it on a `strip --strip-debug` copy)
//   uwb2mqtt-bench forward-floor --port LINK --broker-port PORT [--packets FILE [--render]]
//                                  the forwarding floor's process (ForwardFloor.swift); with
//                                  --packets, the forwarder of the agent's own messages; with
//                                  --render too, those messages made again (RenderedMessages.swift)
//   uwb2mqtt-bench link-order [--map LINK_MAP] BINARY CALLGRIND_OUT...
//                                  the agent's link order from callgrind profiles of BINARY,
//                                  without names in large sections of its LINK_MAP
//                                  (LinkOrder.swift, LinkerMap.swift; `make link-order`)
//
// 1. UCI decode (Decode.swift), the agent's core (CoreBench.swift) and the fuse's solver
//    (SolverBench.swift): in-process, one thread.
// 2. Pipeline, latency, memory (Pipeline.swift): the real `uwb2mqtt run` process (release build,
//    beside this executable) against a private mosquitto, fed by this process through a real
//    pseudo-terminal (DeviceWriter.swift), counted and timed by a libmosquitto subscriber in this
//    process (Subscriber.swift); CPU and VmRSS from /proc/<pid>; heap allocations per measurement
//    with a perf uprobe on glibc malloc (MallocCounter.swift; needs perf and root, else skipped).
//    Then the same workload through Tests/Bench/python_gateway.py (pyserial + paho-mqtt) as the
//    baseline; as floors, `cat` on the same pty (Floor.swift) and a forwarder that only reads
//    the pty and sends the baseline's messages (ForwardFloor.swift), and one that sends the
//    agent's own messages, recorded from it on the same load (OwnMessagesFloor.swift), also
//    made again (RenderedMessages.swift) and then run side by side with the agent, each fed the
//    load in turns (PairedFloor.swift); the agent's and that rendered floor's instructions per
//    notification under callgrind (AgentInstructions.swift).
// 3. The journal (JournalBench.swift): a 64 MiB spool filled, appended to at its bound, opened,
//    drained through the same mosquitto; bytes written per appended and per delivered record.
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "decode1" {
    let n = arguments.count > 1 ? Int(arguments[1]) ?? 0 : 0
    print("decode1 \(n): checksum \(decodeLoop(sessionInfo(measurements: 1), iterations: n))")
    exit(0)
}

if arguments.first == "core1" {
    let n = arguments.count > 1 ? Int(arguments[1]) ?? 0 : 0
    print("core1 \(n): checksum \(coreRounds(n))")
    exit(0)
}

if arguments.first == "forward-floor" {
    exit(runForwardFloor(Array(arguments.dropFirst())))
}

if arguments.first == "link-order" {
    exit(printLinkOrder(Array(arguments.dropFirst())))
}

if arguments.first == "core-only" {
    _ = benchCore()
    exit(0)
}

/// A subcommand's `--key value` pairs (after its name), by key.
func subcommandOptions(_ arguments: [String]) -> [String: String] {
    let pairs = Array(arguments.dropFirst())
    return Dictionary(stride(from: 0, to: pairs.count - 1, by: 2).map { (pairs[$0], pairs[$0 + 1]) }, uniquingKeysWith: { $1 })
}

if arguments.first == "fuse-only" {
    // `fuse-only [--agent PATH] [--seconds S] [--tags N]`: the fuse at site scale (FuseLoad.swift).
    let options = subcommandOptions(arguments)
    let binary = options["--agent"] ?? executableDirectory() + "/uwb2mqtt"
    let seconds = options["--seconds"].flatMap(Double.init) ?? 10, tags = options["--tags"].flatMap(Int.init) ?? 250
    var report = BenchReport()
    for var load in fuseLoads(tags: tags) {
        load.seconds = seconds
        do {
            report.fuse.append(try benchFuseLoad(load, fuse: binary))
        } catch {
            fputs("uwb2mqtt-bench: fuse: \(error)\n", stderr)
            exit(1)
        }
    }
    print(report.fuseTable(), terminator: "")
    exit(0)
}

if arguments.first == "instructions-only" {
    // `instructions-only [--agent PATH] [--rate N] [--seconds S] [--profile PATH] [--floor
    // rendered]`: the agent's instructions per notification under callgrind
    // (AgentInstructions.swift), the profile kept; or the rendered floor's.
    let options = subcommandOptions(arguments)
    let binary = options["--agent"] ?? executableDirectory() + "/uwb2mqtt"
    let rate = options["--rate"].flatMap(Int.init) ?? PipelineSettings().deploymentRate
    let seconds = options["--seconds"].flatMap(Double.init) ?? 10
    let profile = options["--profile"] ?? ".build/bench-agent.callgrind"
    guard options["--floor"] == nil || options["--floor"] == "rendered" else {
        fputs("uwb2mqtt-bench: instructions-only: --floor is rendered\n", stderr)
        exit(2)
    }
    do {
        let broker = try BenchBroker()
        defer { broker.stop() }
        if options["--floor"] != nil {
            let traffic = try recordAgentTraffic(executable: binary, broker: broker, rate: rate)
            let figure = try countRenderedFloorInstructions(of: traffic, broker: broker, rate: rate, seconds: seconds)
            print("\(figure.instructions) instructions of the rendered floor for \(figure.notifications) notifications at \(rate)/s: "
                  + "\(Int(figure.perNotification)) per notification, \(figure.codeLines) lines of code executed")
        } else {
            let figure = try countAgentInstructions(executable: binary, broker: broker, rate: rate, seconds: seconds, profile: profile)
            print("\(figure.instructions) instructions for \(figure.notifications) notifications at \(rate)/s: "
                  + "\(Int(figure.perNotification)) per notification, \(figure.codeLines) lines of code executed; profile: \(profile)")
        }
    } catch {
        fputs("uwb2mqtt-bench: instructions: \(error)\n", stderr)
        exit(1)
    }
    exit(0)
}

if arguments.first == "hold" {
    exit(holdAgent(options: subcommandOptions(arguments)))
}

if arguments.first == "solver-only" {
    var report = BenchReport()
    report.solver = benchSolver()
    print(report.solverTable(), terminator: "")
    exit(0)
}

var settings = PipelineSettings()
var pythonSkipped: String?
var jsonPath = ".build/bench.json"
var agentPath = executableDirectory() + "/uwb2mqtt"
var pythonGateway = "Tests/Bench/python_gateway.py"
var decodeOnly = false
var journalOnly = false
var journalMiB = 64
/// The forwarder of the agent's own messages and the agent's instructions (`--no-own-floor`:
/// `make profile`, whose agent counts its own code or already runs under callgrind).
var ownFloor = true
while !arguments.isEmpty {
    let option = arguments.removeFirst()
    func value() -> String {
        guard !arguments.isEmpty else { fputs("uwb2mqtt-bench: \(option) needs a value\n", stderr); exit(2) }
        return arguments.removeFirst()
    }
    switch option {
    case "decode-only": decodeOnly = true
    case "journal-only": journalOnly = true
    case "--journal-mib": journalMiB = Int(value()) ?? journalMiB
    case "--no-python": pythonSkipped = value()
    case "--quick":
        settings.window = 3
        settings.memoryMeasurements = 200_000
        settings.memoryTimeout = 40
    case "--no-own-floor": ownFloor = false
    case "--json": jsonPath = value()
    case "--agent": agentPath = value()
    case "--python-gateway": pythonGateway = value()
    default:
        fputs("usage: uwb2mqtt-bench [decode-only | journal-only | solver-only | core-only | decode1 N | core1 N | instructions-only [--rate N] [--seconds S] [--profile PATH] [--floor rendered] | forward-floor --port LINK --broker-port PORT [--packets FILE [--render]] | hold [--rate N] [--seconds S] [--floor own|rendered] | link-order [--map LINK_MAP] BINARY CALLGRIND_OUT...] [--no-python REASON] [--no-own-floor] [--quick] [--json PATH] [--agent PATH] [--python-gateway PATH] [--journal-mib N]\n", stderr)
        exit(2)
    }
}

if journalOnly {
    do {
        let broker = try BenchBroker()
        defer { broker.stop() }
        var report = BenchReport()
        report.journal = try benchJournal(maximumBytes: journalMiB << 20, broker: broker)
        print(report.journalTable(), terminator: "")
    } catch {
        fputs("uwb2mqtt-bench: journal: \(error)\n", stderr)
        exit(1)
    }
    exit(0)
}

// The decode figures run on one CPU (BENCH_CPU, default 1) when it exists; the affinity is put
// back before any thread or child process starts, so that the gateways are not pinned.
// (sched_{get,set}affinity are behind _GNU_SOURCE in Glibc's module map: looked up with dlsym.)
typealias AffinityCall = @convention(c) (pid_t, Int, UnsafeMutableRawPointer?) -> Int32
let libc = dlopen(nil, RTLD_NOW)
let getAffinity = dlsym(libc, "sched_getaffinity").map { unsafeBitCast($0, to: AffinityCall.self) }
let setAffinity = dlsym(libc, "sched_setaffinity").map { unsafeBitCast($0, to: AffinityCall.self) }
func sched_getaffinity(_ pid: pid_t, _ size: Int, _ set: UnsafeMutableRawPointer) -> Int32 { getAffinity?(pid, size, set) ?? -1 }
func sched_setaffinity(_ pid: pid_t, _ size: Int, _ set: UnsafeMutableRawPointer) -> Int32 { setAffinity?(pid, size, set) ?? -1 }
var savedAffinity = cpu_set_t()
let hadAffinity = sched_getaffinity(0, MemoryLayout<cpu_set_t>.size, &savedAffinity) == 0
let pinnedCPU = Int(String(cString: getenv("BENCH_CPU") ?? strdup("1"))) ?? 1
var pinned = false
if hadAffinity, pinnedCPU >= 0, pinnedCPU < Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) {
    var one = cpu_set_t()
    withUnsafeMutableBytes(of: &one) { $0[pinnedCPU / 8] |= UInt8(1 << (pinnedCPU % 8)) }
    pinned = sched_setaffinity(0, MemoryLayout<cpu_set_t>.size, &one) == 0
}
log("UCI decode, single thread\(pinned ? " pinned to CPU \(pinnedCPU)" : ""), ~1 s timed per figure")
var report = BenchReport()
report.decode1 = benchDecode("(a)", measurements: 1)
report.decode8 = benchDecode("(b)", measurements: 8)
report.stream = benchStream()
report.core = benchCore()
report.solver = benchSolver()
report.decodeCPU = pinned ? pinnedCPU : nil
if hadAffinity { _ = sched_setaffinity(0, MemoryLayout<cpu_set_t>.size, &savedAffinity) }

if !decodeOnly {
    do {
        guard fileExists(agentPath) else { throw BenchError("no agent at \(agentPath): build it with `swift build -c release --product uwb2mqtt`") }
        let broker = try BenchBroker()
        defer { broker.stop() }
        log("mosquitto on 127.0.0.1:\(broker.port) (pid \(broker.process.pid))")
        switch MallocCounter.prepare() {
        case let .success(counter): settings.mallocCounter = counter
        case let .failure(reason): report.mallocSkipped = reason.description
        }
        defer { settings.mallocCounter?.remove() }
        report.swift = try runGateway(.agent(executable: agentPath), broker: broker, settings: settings)
        if let pythonSkipped {
            report.pythonSkipped = pythonSkipped
        } else if !fileExists(pythonGateway) {
            report.pythonSkipped = "\(pythonGateway) not found"
        } else {
            do {
                report.python = try runGateway(.python(script: pythonGateway), broker: broker, settings: settings)
            } catch {
                report.pythonSkipped = "the Python gateway failed: \(error)"
            }
        }
        do {
            report.wakeFloor = try measureWakeFloor(settings: settings)
        } catch {
            report.wakeFloorError = "\(error)"
        }
        do {
            report.forwardFloor = try measureForwardFloor(settings: settings, broker: broker)
        } catch {
            report.forwardFloorError = "\(error)"
        }
        if ownFloor {
            do {
                let traffic = try recordAgentTraffic(executable: agentPath, broker: broker, settings: settings)
                report.ownTraffic = traffic.sorted { $0.key < $1.key }.map { rate, recording in
                    BenchReport.OwnTrafficFigure(rate: rate, notifications: recording.groups.count, packets: recording.packetsPerNotification,
                                                 acknowledged: recording.acknowledgedPerNotification, bytes: recording.bytesPerNotification)
                }
                (report.ownFloor, report.renderedFloor) = try measureOwnMessagesFloor(settings: settings, broker: broker, traffic: traffic)
                do {
                    report.pairedFloor = try measurePairedRenderedFloor(agentExecutable: agentPath, broker: broker, settings: settings,
                                                                        traffic: traffic)
                } catch {
                    report.pairedFloorError = "\(error)"
                }
                if let recording = traffic[settings.deploymentRate] {
                    do {
                        report.renderedFloorInstructions = try countRenderedFloorInstructions(
                            of: recording, broker: broker, rate: settings.deploymentRate, seconds: settings.window)
                    } catch {
                        report.renderedFloorInstructionsError = "\(error)"
                    }
                }
            } catch {
                report.ownFloorError = "\(error)"
            }
            do {
                // The window's profile beside the JSON, for a breakdown by function.
                let directory = jsonPath.lastIndex(of: "/").map { String(jsonPath[..<$0]) } ?? "."
                report.instructions = try countAgentInstructions(executable: agentPath, broker: broker, rate: settings.deploymentRate,
                                                                 seconds: settings.window, profile: directory + "/bench-agent.callgrind")
            } catch {
                report.instructionsError = "\(error)"
            }
        }
        do {
            report.journal = try benchJournal(maximumBytes: journalMiB << 20, broker: broker)
        } catch {
            report.journalError = "\(error)"
        }
        // Not in a quick run (`make profile` profiles the agent with one).
        let loads = settings.window < PipelineSettings().window ? [] : fuseLoads()
        if !loads.isEmpty { log("the fuse at site scale: \(loads.map(\.name).joined(separator: "; "))") }
        for load in loads {
            do {
                report.fuse.append(try benchFuseLoad(load, fuse: agentPath))
            } catch {
                log("fuse: \(load.name): \(error)")
            }
        }
    } catch {
        report.pipelineError = "\(error)"
    }
}
report.settings = settings
print(report.table(), terminator: "")
if report.writeJSON(to: jsonPath) { log("wrote \(jsonPath)") } else { log("cannot write \(jsonPath)") }
exit(report.pipelineError == nil || decodeOnly ? 0 : 1)
