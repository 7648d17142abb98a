#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Vocabulary

/// Everything one run measured, as a table for people and as JSON for machines.
struct BenchReport: Sendable {
    var decode1: DecodeFigure?
    var decode8: DecodeFigure?
    var stream: DecodeFigure?
    /// AgentCore: one round of 8 measurements to payload bytes, in process.
    var core: DecodeFigure?
    var solver: [SolverFigure] = []
    /// `uwb2mqtt fuse` at site scale, through the broker (FuseLoad.swift).
    var fuse: [FuseLoadFigures] = []
    var decodeCPU: Int?
    var swift: GatewayResult?
    var python: GatewayResult?
    var pythonSkipped: String?
    var pipelineError: String?
    var mallocSkipped: String?
    var journal: JournalFigure?
    var journalError: String?
    /// `cat` reading the same pty: the cost of waking up for each notification (Floor.swift).
    var wakeFloor: [FloorFigure] = []
    var wakeFloorError: String?
    /// A forwarder that reads the pty and sends the Python baseline's messages, nothing else
    /// (ForwardFloor.swift): the cost of publishing them from this machine.
    var forwardFloor: [FloorFigure] = []
    var forwardFloorError: String?
    /// The forwarder of the agent's own recorded messages (OwnMessagesFloor.swift), and what it
    /// replayed per notification at each rate.
    var ownFloor: [FloorFigure] = []
    var ownTraffic: [OwnTrafficFigure] = []
    /// The same messages made again per notification from their values (RenderedMessages.swift).
    var renderedFloor: [FloorFigure] = []
    var ownFloorError: String?
    /// Instructions per notification of the whole agent process (AgentInstructions.swift).
    var instructions: InstructionFigure?
    /// The agent and the rendered floor side by side, fed in turns (PairedFloor.swift).
    var pairedFloor: [PairedFigure] = []
    var pairedFloorError: String?
    /// The same count for the rendered floor of the agent's own messages.
    var renderedFloorInstructions: InstructionFigure?
    var renderedFloorInstructionsError: String?
    var instructionsError: String?
    var settings = PipelineSettings()

    /// What the agent published per notification at one rate, as recorded and replayed.
    struct OwnTrafficFigure: Sendable {
        var rate: Int
        var notifications: Int
        var packets: Double
        var acknowledged: Double
        var bytes: Double
    }

    /// The goal of the agent against the forwarder of its own messages, at every rate.
    static let ownFloorGoal = 1.3

    /// A Raspberry Pi 4's Cortex-A72 at its 1.5 GHz, retiring an assumed one instruction per
    /// cycle on the agent's branchy, pointer-chasing code (the A72 can retire three; an IPC of 1
    /// is the usual figure for such code on it, and the estimate scales with it).
    static let piInstructionsPerSecond = 1.5e9

    // MARK: table

    func table() -> String {
        var out: [String] = []
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        out.append("uwb2mqtt bench — \(cores) CPUs; gateways: uwb2mqtt (Swift, release) and a plain Python baseline")
        out.append("")
        out.append(pad("UCI decode, one core" + (decodeCPU.map { " (CPU \($0))" } ?? ""), 46) + "ns/notification   notifications/s")
        for (label, figure) in [("  SESSION_INFO_NTF, 1 measurement", decode1), ("  SESSION_INFO_NTF, 8 measurements", decode8),
                                ("  stream: reassembly + decode, 1 meas.", stream)] {
            guard let figure else { continue }
            out.append(pad(label, 46) + lpad(format(figure.nanoseconds, 1), 15) + lpad(grouped(figure.perSecond), 18))
        }
        if let core {
            out.append(pad("  core: rules + payloads, 8 measurements", 46) + lpad(format(core.nanoseconds, 1), 15)
                       + lpad(grouped(core.perSecond), 18) + "   (" + format(core.nanoseconds / 8000, 2) + " µs/measurement)")
        }
        if !solver.isEmpty {
            out.append("")
            out.append(contentsOf: solverRows())
        }
        if !fuse.isEmpty {
            out.append("")
            out.append(contentsOf: fuseRows())
        }
        if let pipelineError {
            out.append("")
            out.append("pipeline: NOT MEASURED: \(pipelineError)")
            return out.joined(separator: "\n") + "\n"
        }
        guard let swift else { return out.joined(separator: "\n") + "\n" }
        let py = python
        out.append("")
        out.append("Pipeline: pty → gateway process → mosquitto → subscriber; 8 peers; gateway CPU (all threads) per delivered measurement")
        out.append("  offered/s   gateway    written/s  delivered/s   CPU µs/meas   CPU % core   Python/uwb2mqtt CPU per meas.")
        for (index, phase) in swift.phases.enumerated() {
            let other = py?.phases.count ?? 0 > index ? py!.phases[index] : nil
            out.append(phaseRow(lpad(grouped(Double(phase.targetRate)), 11), "uwb2mqtt", phase, ratio: nil)
                       + (settings.label(rate: phase.targetRate).map { "   ← \($0)" } ?? ""))
            if let other {
                out.append(phaseRow(String(repeating: " ", count: 11), "python", other,
                                    ratio: other.cpuPerMeasurementMicroseconds / phase.cpuPerMeasurementMicroseconds))
            }
            for (name, floors) in [("cat", wakeFloor), ("forward", forwardFloor), ("own", ownFloor), ("rendered", renderedFloor)] {
                guard let floor = floors.first(where: { $0.rate == phase.targetRate }) else { continue }
                out.append(pad("", 12) + pad(name, 9) + lpad(grouped(Double(floor.rate)), 12)
                           + lpad(floor.delivered.map { grouped(Double($0) / settings.window) } ?? "—", 13)
                           + lpad(format(floor.microsecondsPerMeasurement, 1), 14)
                           + lpad(format(floor.microsecondsPerMeasurement * Double(floor.rate) / 1e4, 1), 13)
                           + (name == "own" || name == "rendered"
                              ? lpad(format(phase.cpuPerMeasurementMicroseconds / floor.microsecondsPerMeasurement, 2)
                                     + "× (uwb2mqtt/\(name))", 30) : ""))
            }
        }
        if !wakeFloor.isEmpty {
            out.append("  cat: `cat` reading the same pty into /dev/null (no decoding, no broker): the cost of waking up for each")
            out.append("  notification, below which no gateway gets on this machine")
        }
        if let wakeFloorError { out.append("  cat: not measured: \(wakeFloorError)") }
        if !forwardFloor.isEmpty {
            out.append("  forward: reads the pty and sends the Python baseline's 8 range messages per notification, encoded once, in")
            out.append("  one send (no decoding, rules or JSON): the cost of publishing them, below which no such gateway gets")
            for phase in py?.phases ?? [] {
                guard let floor = forwardFloor.first(where: { $0.rate == phase.targetRate }) else { continue }
                let tenfold = phase.cpuPerMeasurementMicroseconds / 10
                out.append("    at \(grouped(Double(phase.targetRate)))/s a tenfold lead over Python is \(format(tenfold, 1)) µs/meas.: "
                           + (tenfold < floor.microsecondsPerMeasurement ? "below" : "above")
                           + " the forwarder's \(format(floor.microsecondsPerMeasurement, 1))")
            }
        }
        if let forwardFloorError { out.append("  forward: not measured: \(forwardFloorError)") }
        out += ownFloorRows(swift)
        out.append("")
        let s = swift.phases.first { $0.latency != nil }?.latency
        let p = py?.phases.first { $0.latency != nil }?.latency
        out.append("Latency: write() into the pty → message in the subscriber, \(grouped(Double(settings.latencyRate)))/s offered, 8 peers")
        out.append("                          uwb2mqtt       python   Python/uwb2mqtt")
        for (label, a, b) in [("  p50 (ms)", s?.p50, p?.p50), ("  p99 (ms)", s?.p99, p?.p99), ("  max (ms)", s?.max, p?.max)] {
            out.append(pad(label, 20) + lpad(a.map { format($0, 3) } ?? "—", 14) + lpad(b.map { format($0, 3) } ?? "—", 13)
                       + lpad(ratio(b, a), 18))
        }
        out.append(pad("  samples", 20) + lpad(s.map { "\($0.samples)/\($0.expected)" } ?? "—", 14)
                   + lpad(p.map { "\($0.samples)/\($0.expected)" } ?? "—", 13))
        out.append("")
        out += threadRows(swift, py)
        out.append("")
        let sa = swift.mallocs, pa = py?.mallocs
        out.append("Heap allocations          uwb2mqtt       python")
        out.append(pad("  mallocs/meas." + (sa.map { " (\(grouped(Double($0.rate)))/s)" } ?? ""), 20)
                   + lpad(sa.map { format($0.perMeasurement, 1) } ?? "—", 14) + lpad(pa.map { format($0.perMeasurement, 1) } ?? "—", 13))
        out.append("")
        out.append("Resident memory           uwb2mqtt       python   Python/uwb2mqtt")
        let sm = swift.memory, pm = py?.memory
        func kib(_ v: Int?) -> String { v.map { "\(grouped(Double($0))) KiB" } ?? "—" }
        out.append(pad("  VmRSS after start", 20) + lpad(kib(sm?.startKiB), 14) + lpad(kib(pm?.startKiB), 13)
                   + lpad(ratio(pm.map { Double($0.startKiB) }, sm.map { Double($0.startKiB) }), 18))
        out.append(pad("  VmRSS after 100k", 20) + lpad(kib(sm?.after100kKiB), 14) + lpad(kib(pm?.after100kKiB), 13))
        out.append(pad("  VmRSS at the end", 20) + lpad(kib(sm?.endKiB), 14) + lpad(kib(pm?.endKiB), 13)
                   + lpad(ratio(pm.map { Double($0.endKiB) }, sm.map { Double($0.endKiB) }), 18))
        out.append(pad("  VmHWM at the end", 20) + lpad(kib(sm?.peakKiB), 14) + lpad(kib(pm?.peakKiB), 13)
                   + lpad(ratio(pm?.peakKiB.map(Double.init), sm?.peakKiB.map(Double.init)), 18))
        out.append(pad("  RssAnon at the end", 20) + lpad(kib(sm?.anonymousKiB), 14) + lpad(kib(pm?.anonymousKiB), 13)
                   + lpad(ratio(pm?.anonymousKiB.map(Double.init), sm?.anonymousKiB.map(Double.init)), 18))
        out.append(pad("    measurements", 20) + lpad(sm.map { grouped(Double($0.measurements)) } ?? "—", 14)
                   + lpad(pm.map { grouped(Double($0.measurements)) } ?? "—", 13))
        out.append(pad("    reached in", 20) + lpad(sm.map { format($0.seconds, 0) + " s" } ?? "—", 14)
                   + lpad(pm.map { format($0.seconds, 0) + " s" } ?? "—", 13))
        func growth(_ m: MemoryResult?) -> String {
            guard let m, let mid = m.after100kKiB else { return "—" }
            let d = m.endKiB - mid
            return (d >= 0 ? "+" : "") + "\(grouped(Double(d))) KiB"
        }
        out.append(pad("  growth 100k → end", 20) + lpad(growth(sm), 14) + lpad(growth(pm), 13))
        out.append("")
        out += journalRows()
        var notes: [String] = []
        if let m = sm, !m.reachedTarget { notes.append("uwb2mqtt did not reach \(grouped(Double(settings.memoryMeasurements))) measurements in \(format(settings.memoryTimeout, 0)) s") }
        if let m = pm, !m.reachedTarget { notes.append("python did not reach \(grouped(Double(settings.memoryMeasurements))) measurements in \(format(settings.memoryTimeout, 0)) s") }
        if let pythonSkipped { notes.append("Python baseline skipped: \(pythonSkipped)") }
        notes.append("threads: entries of /proc/PID/task at the end of the window; context switches: voluntary + "
                     + "nonvoluntary over /proc/PID/task/*/status (live threads), per notification written (\(benchPeers.count) "
                     + "measurements each); VmHWM: peak resident set over the gateway's life, read after the memory run; "
                     + "RssAnon: the part of the resident set that is the gateway's own (heap, stacks), not pages of its executable "
                     + "and libraries, which are page cache shared with every process that maps them")
        if let mallocSkipped {
            notes.append("mallocs not counted: \(mallocSkipped)")
        } else {
            notes.append("mallocs/meas.: calls to glibc malloc in the whole gateway process (perf uprobe, own window), per "
                         + "measurement; Python takes most small objects from its pymalloc arenas, which this does not count")
        }
        notes += swift.notes.map { "uwb2mqtt: \($0)" } + (py?.notes.map { "python: \($0)" } ?? [])
        if !notes.isEmpty {
            out.append("")
            for note in notes { out.append("note: \(note)") }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// The forwarder of the agent's own messages: what it replayed, the agent's cost over it
    /// against the goal, and the agent's instructions per notification.
    private func ownFloorRows(_ swift: GatewayResult) -> [String] {
        var out: [String] = []
        if !ownFloor.isEmpty {
            out.append("  own: reads the pty and sends, per notification, the packets the agent sent for one (recorded from the agent on")
            out.append("  this load through a proxy, replayed pre-encoded over MQTT 5 in one send, QoS 1 acknowledgements read):")
            out.append("  the cost of saying what the agent says, with no decoding, rules or JSON")
            out.append("  rendered: the same, but each notification decoded and its packets made again, every number and timestamp")
            out.append("  formatted anew with the agent's formatters (no rules, no state): the cost of saying it with the JSON made")
            out.append("    offered/s   recorded notif.   packets/notif. (QoS 1)   bytes/notif.   uwb2mqtt/own CPU per meas.   rendered/own")
            var met = true
            var metRendered = !renderedFloor.isEmpty
            for traffic in ownTraffic {
                let phase = swift.phases.first { $0.targetRate == traffic.rate }
                let floor = ownFloor.first { $0.rate == traffic.rate }
                let ratio = phase.flatMap { p in floor.map { p.cpuPerMeasurementMicroseconds / $0.microsecondsPerMeasurement } }
                if (ratio ?? .infinity) > Self.ownFloorGoal { met = false }
                let rendered = renderedFloor.first { $0.rate == traffic.rate }
                let renderedRatio = rendered.flatMap { r in floor.map { r.microsecondsPerMeasurement / $0.microsecondsPerMeasurement } }
                let overRendered = phase.flatMap { p in rendered.map { p.cpuPerMeasurementMicroseconds / $0.microsecondsPerMeasurement } }
                if (overRendered ?? .infinity) > Self.ownFloorGoal { metRendered = false }
                out.append(lpad(grouped(Double(traffic.rate)), 13) + lpad(grouped(Double(traffic.notifications)), 18)
                           + lpad(format(traffic.packets, 2) + " (" + format(traffic.acknowledged, 2) + ")", 25)
                           + lpad(grouped(traffic.bytes), 15) + lpad(ratio.map { format($0, 2) + "×" } ?? "—", 29)
                           + lpad(renderedRatio.map { format($0, 2) + "×" } ?? "—", 15))
            }
            out.append("    goal ≤ \(format(Self.ownFloorGoal, 1))× at every rate: " + (met ? "met" : "not met"))
            if !renderedFloor.isEmpty {
                // Formatting the messages alone costs about what the goal above allows for everything
                // (docs/performance.md): the proposed goal counts it on the floor's side.
                out.append("    proposed instead, uwb2mqtt ≤ \(format(Self.ownFloorGoal, 1))× the rendered floor at every rate: "
                           + (metRendered ? "met" : "not met") + (pairedFloor.isEmpty ? "" : " (measured minutes apart; paired below)"))
            }
        }
        if !pairedFloor.isEmpty {
            out.append("  paired: uwb2mqtt and the rendered floor running side by side, fed the load in turns (ABAB, "
                       + "\(pairedFloor[0].slices) slices of \(format(pairedFloor[0].secondsPerSlice, 1)) s each per rate),")
            out.append("  so that the machine's drift falls on both alike; CPU µs per measurement written")
            out.append("    offered/s   uwb2mqtt   rendered   uwb2mqtt/rendered   turn by turn")
            for figure in pairedFloor {
                let spread = (figure.turnRatios.min() ?? .nan, figure.turnRatios.max() ?? .nan)
                out.append(lpad(grouped(Double(figure.rate)), 13) + lpad(format(figure.agentMicroseconds, 1), 11)
                           + lpad(format(figure.floorMicroseconds, 1), 11) + lpad(format(figure.ratio, 2) + "×", 20)
                           + lpad(format(spread.0, 2) + "–" + format(spread.1, 2) + "×", 15))
            }
            let met = pairedFloor.allSatisfy { $0.ratio <= Self.ownFloorGoal }
            out.append("    proposed goal, uwb2mqtt ≤ \(format(Self.ownFloorGoal, 1))× the rendered floor at every rate, paired: "
                       + (met ? "met" : "not met"))
        }
        if let pairedFloorError { out.append("  paired: not measured: \(pairedFloorError)") }
        if let ownFloorError { out.append("  own: not measured: \(ownFloorError)") }
        if let instructions {
            let perSecond = instructions.perNotification * Double(settings.deploymentRate) / Double(benchPeers.count)
            out.append("  instructions per notification, the whole agent process in user space (callgrind, deterministic hashing, "
                       + "\(grouped(Double(instructions.rate)))/s, \(grouped(Double(instructions.notifications))) notifications): "
                       + grouped(instructions.perNotification))
            out.append("    at \(settings.label(rate: settings.deploymentRate) ?? "\(settings.deploymentRate)/s"): "
                       + "\(format(perSecond / 1e6, 1)) M instructions/s, \(format(perSecond / Self.piInstructionsPerSecond * 100, 1)) % "
                       + "of a Raspberry Pi 4 core at 1.5 GHz and 1 instruction/cycle, before the kernel's share")
            if let floor = renderedFloorInstructions {
                out.append("    the rendered floor's, counted the same way: " + grouped(floor.perNotification)
                           + "; the agent's own beyond it: " + grouped(instructions.perNotification - floor.perNotification)
                           + " (uwb2mqtt/rendered \(format(instructions.perNotification / floor.perNotification, 2))× in user space)")
            }
            out.append("    code executed in the window, distinct 64-byte lines in every object (what a notification on a cold "
                       + "instruction cache fetches again): \(grouped(Double(instructions.codeLines))) (\(format(instructions.codeKiB, 0)) KiB)"
                       + (renderedFloorInstructions.map { floor in
                           "; the rendered floor's \(grouped(Double(floor.codeLines))) (\(format(floor.codeKiB, 0)) KiB), "
                               + "uwb2mqtt/rendered \(format(Double(instructions.codeLines) / Double(floor.codeLines), 2))×"
                       } ?? ""))
        }
        if let instructionsError { out.append("  instructions: not counted: \(instructionsError)") }
        if let renderedFloorInstructionsError { out.append("  the rendered floor's instructions: not counted: \(renderedFloorInstructionsError)") }
        return out
    }

    /// The journal's figures alone (`uwb2mqtt-bench journal-only`).
    func solverTable() -> String { solverRows().joined(separator: "\n") + "\n" }

    private func solverRows() -> [String] {
        [pad("Fuse solver (2-D, one fix), one core", 46) + "µs/fix            fixes/s"] + solver.map { f in
            pad("  \(f.gateways) gateways", 46) + lpad(format(f.microsecondsPerFix, 1), 15) + lpad(grouped(1e6 / f.microsecondsPerFix), 18)
        }
    }

    func fuseTable() -> String { fuseRows().joined(separator: "\n") + "\n" }

    /// The fuse fed by fake gateways through mosquitto: per load, what it sustains and at what cost.
    private func fuseRows() -> [String] {
        guard !fuse.isEmpty else { return ["Fuse at site scale: NOT MEASURED"] }
        var out = [pad("Fuse at site scale (real broker)", 46) + "ranges/s  pos/tag/round  fixes/s   CPU %  µs/fix  p50 ms  p99 ms  last ms  VmHWM KiB"]
        // A load that gave no position has no latency or cost per fix: a dash, not a trap.
        func figure(_ value: Double, _ digits: Int) -> String { value.isFinite ? format(value, digits) : "–" }
        func count(_ value: Double) -> String { value.isFinite ? grouped(value) : "–" }
        for f in fuse {
            out.append(pad("  " + f.name, 46) + lpad(count(f.rangesPerSecond), 8) + lpad(figure(f.positionsPerTagRound, 2), 15)
                       + lpad(count(f.fixesPerSecond), 9) + lpad(figure(f.cpuPercent, 0), 8) + lpad(figure(f.cpuMicrosecondsPerFix, 0), 8)
                       + lpad(figure(f.latencyP50Milliseconds, 0), 8) + lpad(figure(f.latencyP99Milliseconds, 0), 8)
                       + lpad(figure(f.lastRoundLatencyMilliseconds, 0), 9) + lpad(count(Double(f.peakRSSKiB)), 11))
        }
        out.append("  latency: from a position's newest range to the subscriber, of the positions while every tag ranges; last: the")
        out.append("  median of each tag's last position when ranging stops, its round closed by the window's deadline")
        return out
    }

    func journalTable() -> String { journalRows().joined(separator: "\n") + "\n" }

    /// The journal at its bound: appends (one fdatasync each), opening, draining through mosquitto,
    /// and what the disk is asked to write for it.
    private func journalRows() -> [String] {
        guard let j = journal else { return ["Journal: NOT MEASURED: \(journalError ?? "skipped")"] }
        var out = ["Journal (spool) of \(j.maximumBytes >> 20) MiB, \(j.recordBytes)-byte event records      messages/s   MB/s    bytes written/record"]
        func row(_ label: String, _ rate: JournalFigure.Rate, _ written: String) -> String {
            pad(label, 62) + lpad(grouped(rate.perSecond), 12)
                + lpad(format(rate.perSecond * Double(j.recordBytes) / 1e6, 1), 7) + lpad(written, 22)
        }
        out.append(row("  append, empty → full (fdatasync each; \(grouped(Double(j.fill.messages))))", j.fill,
                       format(j.appendDiskBytesPerRecord, 0) + " (disk)"))
        out.append(row("  append at the bound (oldest segments dropped; \(grouped(Double(j.atBound.messages))))", j.atBound, ""))
        out.append(pad("  open again: every record checked (\(grouped(Double(j.openMessages))))", 62) + lpad(format(j.openSeconds, 2) + " s", 12))
        out.append(row("  drain through mosquitto, batches of 50 (\(grouped(Double(j.drain.messages))))", j.drain,
                       format(j.drainJournalBytesPerRecord, 2) + " / " + format(j.drainDiskBytesPerRecord, 1) + " (disk)"))
        out.append(pad("  VmRSS with the journal open; VmHWM after the drain", 62)
                   + lpad("\(grouped(Double(j.residentKiBOpen))) KiB; \(grouped(Double(j.peakKiB))) KiB", 24))
        out.append("  bytes written per delivered record: by the journal (its read pointer) / write_bytes of /proc/self/io")
        return out
    }

    /// Threads and context switches in the deployment-rate window (`PipelineSettings.deploymentRate`):
    /// what a gateway costs the host at the rate it will really run at, beyond its CPU time.
    private func threadRows(_ swift: GatewayResult, _ py: GatewayResult?) -> [String] {
        let rate = settings.deploymentRate
        let s = swift.phases.first { $0.targetRate == rate }
        let p = py?.phases.first { $0.targetRate == rate }
        var out = ["Threads, context switches at \(grouped(Double(rate)))/s" + (settings.label(rate: rate).map { " (\($0))" } ?? "")]
        out.append("                          uwb2mqtt       python   Python/uwb2mqtt")
        out.append(pad("  threads", 20) + lpad(s?.threads.map(String.init) ?? "—", 14) + lpad(p?.threads.map(String.init) ?? "—", 13)
                   + lpad(ratio(p?.threads.map(Double.init), s?.threads.map(Double.init)), 18))
        func perNotification(_ phase: PhaseResult?, _ part: (ContextSwitches) -> Int) -> Double? {
            guard let phase, let c = phase.contextSwitches, phase.notifications > 0 else { return nil }
            return Double(part(c)) / Double(phase.notifications)
        }
        for (label, part) in [("  ctx sw./notif.", { (c: ContextSwitches) in c.total }),
                              ("    voluntary", { (c: ContextSwitches) in c.voluntary }),
                              ("    nonvoluntary", { (c: ContextSwitches) in c.nonvoluntary })] {
            let a = perNotification(s, part), b = perNotification(p, part)
            out.append(pad(label, 20) + lpad(a.map { format($0, 2) } ?? "—", 14) + lpad(b.map { format($0, 2) } ?? "—", 13)
                       + (label.hasPrefix("    ") ? "" : lpad(ratio(b, a), 18)))
        }
        out.append(pad("  notifications", 20) + lpad(s.map { grouped(Double($0.notifications)) } ?? "—", 14)
                   + lpad(p.map { grouped(Double($0.notifications)) } ?? "—", 13))
        return out
    }

    private func phaseRow(_ first: String, _ name: String, _ p: PhaseResult, ratio r: Double?) -> String {
        pad(first, 12) + pad(name, 9) + lpad(grouped(p.offeredRate), 12) + lpad(grouped(p.deliveredRate), 13)
            + lpad(format(p.cpuPerMeasurementMicroseconds, 1), 14) + lpad(format(p.coreShare * 100, 1), 13)
            + lpad(r.map { format($0, 1) + "×" } ?? "", 14)
    }

    private func ratio(_ a: Double?, _ b: Double?) -> String {
        guard let a, let b, b > 0 else { return "—" }
        return format(a / b, 1) + "×"
    }

    private func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
    private func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? " " + s : String(repeating: " ", count: n - s.count) + s }

    // MARK: JSON

    func writeJSON(to path: String) -> Bool {
        let text = json() + "\n"
        guard let file = fopen(path, "w") else { return false }
        defer { fclose(file) }
        return fputs(text, file) >= 0
    }

    func json() -> String {
        var fields: [(String, JSONValue)] = []
        func decode(_ f: DecodeFigure?) -> JSONValue {
            guard let f else { return .null }
            return obj([("ns_per_notification", num(f.nanoseconds)), ("notifications_per_s", num(f.perSecond))])
        }
        fields.append(("uci_decode", obj([("one_measurement", decode(decode1)), ("eight_measurements", decode(decode8)),
                                          ("stream_reassembly_one_measurement", decode(stream)), ("core_round_eight_measurements", decode(core))])))
        fields.append(("site_solver", .list(solver.map { f in
            obj([("gateways", num(Double(f.gateways))), ("us_per_fix", num(f.microsecondsPerFix))])
        })))
        fields.append(("fuse_site_scale", .list(fuse.map { f in
            obj([("load", .string(f.name)), ("ranges_per_s", num(f.rangesPerSecond)), ("positions_per_tag_round", num(f.positionsPerTagRound)),
                 ("fixes_per_s", num(f.fixesPerSecond)), ("cpu_percent", num(f.cpuPercent)), ("us_per_fix", num(f.cpuMicrosecondsPerFix)),
                 ("latency_p50_ms", num(f.latencyP50Milliseconds)), ("latency_p99_ms", num(f.latencyP99Milliseconds)),
                 ("last_round_latency_ms", num(f.lastRoundLatencyMilliseconds)),
                 ("vmhwm_kib", num(Double(f.peakRSSKiB)))])
        })))
        fields.append(("settings", obj([("window_s", num(settings.window)), ("latency_rate_per_s", num(Double(settings.latencyRate))),
                                        ("memory_measurements", num(Double(settings.memoryMeasurements))),
                                        ("memory_rate_per_s", num(Double(settings.memoryRate))), ("peers", num(Double(benchPeers.count))),
                                        ("rates_per_s", .list(settings.rates.map { num(Double($0)) })),
                                        ("deployment_rate_per_s", num(Double(settings.deploymentRate)))])))
        fields.append(("uwb2mqtt", gateway(swift)))
        fields.append(("python", gateway(python)))
        fields.append(("python_skipped", pythonSkipped.map(JSONValue.string) ?? .null))
        fields.append(("pipeline_error", pipelineError.map(JSONValue.string) ?? .null))
        fields.append(("mallocs_skipped", mallocSkipped.map(JSONValue.string) ?? .null))
        fields.append(("journal", journal.map { j in
            obj([("maximum_bytes", num(Double(j.maximumBytes))), ("record_bytes", num(Double(j.recordBytes))),
                 ("fill_messages", num(Double(j.fill.messages))), ("fill_per_s", num(j.fill.perSecond)),
                 ("append_disk_bytes_per_record", num(j.appendDiskBytesPerRecord)),
                 ("at_bound_messages", num(Double(j.atBound.messages))), ("at_bound_per_s", num(j.atBound.perSecond)),
                 ("dropped_at_bound", num(Double(j.dropped))),
                 ("open_s", num(j.openSeconds)), ("open_messages", num(Double(j.openMessages))),
                 ("drain_messages", num(Double(j.drain.messages))), ("drain_per_s", num(j.drain.perSecond)),
                 ("drain_journal_bytes_per_record", num(j.drainJournalBytesPerRecord)),
                 ("drain_disk_bytes_per_record", num(j.drainDiskBytesPerRecord)),
                 ("rss_kib_open", num(Double(j.residentKiBOpen))), ("hwm_kib_after_drain", num(Double(j.peakKiB)))])
        } ?? .null))
        fields.append(("journal_error", journalError.map(JSONValue.string) ?? .null))
        fields.append(("wake_floor_cat", .list(wakeFloor.map { f in
            obj([("offered_target_per_s", num(Double(f.rate))), ("cpu_us_per_measurement", num(f.microsecondsPerMeasurement))])
        })))
        fields.append(("forward_floor", .list(forwardFloor.map { f in
            obj([("offered_target_per_s", num(Double(f.rate))), ("cpu_us_per_measurement", num(f.microsecondsPerMeasurement)),
                 ("delivered", f.delivered.map { num(Double($0)) } ?? .null)])
        })))
        fields.append(("forward_floor_error", forwardFloorError.map(JSONValue.string) ?? .null))
        fields.append(("own_messages_floor", .list(ownFloor.map { f in
            let traffic = ownTraffic.first { $0.rate == f.rate }
            let phase = swift?.phases.first { $0.targetRate == f.rate }
            return obj([("offered_target_per_s", num(Double(f.rate))), ("cpu_us_per_measurement", num(f.microsecondsPerMeasurement)),
                        ("delivered", f.delivered.map { num(Double($0)) } ?? .null),
                        ("recorded_notifications", traffic.map { num(Double($0.notifications)) } ?? .null),
                        ("packets_per_notification", traffic.map { num($0.packets) } ?? .null),
                        ("qos1_packets_per_notification", traffic.map { num($0.acknowledged) } ?? .null),
                        ("bytes_per_notification", traffic.map { num($0.bytes) } ?? .null),
                        ("uwb2mqtt_over_own", phase.map { num($0.cpuPerMeasurementMicroseconds / f.microsecondsPerMeasurement) } ?? .null)])
        })))
        fields.append(("own_messages_rendered_floor", .list(renderedFloor.map { f in
            let phase = swift?.phases.first { $0.targetRate == f.rate }
            let own = ownFloor.first { $0.rate == f.rate }
            return obj([("offered_target_per_s", num(Double(f.rate))), ("cpu_us_per_measurement", num(f.microsecondsPerMeasurement)),
                        ("delivered", f.delivered.map { num(Double($0)) } ?? .null),
                        ("rendered_over_own", own.map { num(f.microsecondsPerMeasurement / $0.microsecondsPerMeasurement) } ?? .null),
                        ("uwb2mqtt_over_rendered", phase.map { num($0.cpuPerMeasurementMicroseconds / f.microsecondsPerMeasurement) } ?? .null)])
        })))
        fields.append(("own_messages_floor_error", ownFloorError.map(JSONValue.string) ?? .null))
        func instructionFields(_ i: InstructionFigure) -> JSONValue {
            obj([("rate_per_s", num(Double(i.rate))), ("notifications", num(Double(i.notifications))),
                 ("instructions", num(Double(i.instructions))), ("per_notification", num(i.perNotification)),
                 ("code_lines", num(Double(i.codeLines)))])
        }
        fields.append(("instructions", instructions.map(instructionFields) ?? .null))
        fields.append(("paired_rendered_floor", .list(pairedFloor.map { f in
            obj([("offered_target_per_s", num(Double(f.rate))), ("uwb2mqtt_cpu_us_per_measurement", num(f.agentMicroseconds)),
                 ("rendered_cpu_us_per_measurement", num(f.floorMicroseconds)), ("uwb2mqtt_over_rendered", num(f.ratio)),
                 ("slices", num(Double(f.slices))), ("seconds_per_slice", num(f.secondsPerSlice)),
                 ("turn_ratios", .list(f.turnRatios.map(num)))])
        })))
        fields.append(("paired_rendered_floor_error", pairedFloorError.map(JSONValue.string) ?? .null))
        fields.append(("rendered_floor_instructions", renderedFloorInstructions.map(instructionFields) ?? .null))
        fields.append(("instructions_error", instructionsError.map(JSONValue.string) ?? .null))
        fields.append(("rendered_floor_instructions_error", renderedFloorInstructionsError.map(JSONValue.string) ?? .null))
        return obj(fields).json
    }

    private func gateway(_ g: GatewayResult?) -> JSONValue {
        guard let g else { return .null }
        let phases = g.phases.map { p in
            obj([("offered_target_per_s", num(Double(p.targetRate))), ("label", settings.label(rate: p.targetRate).map(JSONValue.string) ?? .null),
                 ("window_s", num(p.seconds)),
                 ("written_per_s", num(p.offeredRate)), ("delivered_per_s", num(p.deliveredRate)), ("delivered", num(Double(p.delivered))),
                 ("cpu_s_sched", num(p.cpuSched)), ("cpu_s_ticks", num(p.cpuTicks)),
                 ("cpu_us_per_measurement", num(p.cpuPerMeasurementMicroseconds)),
                 ("cpu_us_per_measurement_ticks", num(p.cpuPerMeasurementTicksMicroseconds)),
                 ("core_share", num(p.coreShare)),
                 ("notifications", num(Double(p.notifications))), ("threads", p.threads.map { num(Double($0)) } ?? .null),
                 ("context_switches", p.contextSwitches.map { c in
                     obj([("voluntary", num(Double(c.voluntary))), ("nonvoluntary", num(Double(c.nonvoluntary))),
                          ("per_notification", num(p.contextSwitchesPerNotification))]) } ?? .null),
                 ("latency_ms", p.latency.map { l in obj([("p50", num(l.p50)), ("p99", num(l.p99)), ("max", num(l.max)),
                                                          ("samples", num(Double(l.samples))), ("expected", num(Double(l.expected)))]) } ?? .null)])
        }
        let memory = g.memory.map { m in
            obj([("rss_kib_start", num(Double(m.startKiB))), ("rss_kib_after_100k", m.after100kKiB.map { num(Double($0)) } ?? .null),
                 ("rss_kib_end", num(Double(m.endKiB))), ("hwm_kib_end", m.peakKiB.map { num(Double($0)) } ?? .null),
                 ("rss_anon_kib_end", m.anonymousKiB.map { num(Double($0)) } ?? .null),
                 ("measurements", num(Double(m.measurements))), ("seconds", num(m.seconds)),
                 ("reached_target", .bool(m.reachedTarget))])
        } ?? .null
        let mallocs = g.mallocs.map { a in
            obj([("rate_per_s", num(Double(a.rate))), ("mallocs", num(Double(a.mallocs))), ("measurements", num(Double(a.measurements))),
                 ("per_measurement", num(a.perMeasurement))])
        } ?? .null
        return obj([("phases", .list(phases)), ("memory", memory), ("mallocs", mallocs),
                    ("write_failures", num(Double(g.writeFailures))), ("notes", .list(g.notes.map(JSONValue.string)))])
    }

    private func obj(_ fields: [(String, JSONValue)]) -> JSONValue {
        .object(fields.map { JSONMember($0.0, $0.1) })
    }

    /// A whole number as a JSON integer (`100`, not `100.0`), anything else as a double.
    private func num(_ v: Double) -> JSONValue {
        if v.isFinite && v == v.rounded() && abs(v) < 1e15 { return .int(Int64(v)) }
        return .double(v)
    }
}
