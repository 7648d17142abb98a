import Foundation
import TestSupport
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Instructions the whole agent process executes per notification (user space: reassembly and
/// decoding, the session, the rules, the payloads, the MQTT client, the runtime, libc), counted
/// by callgrind with deterministic hashing. Unlike microseconds they hold from one machine to
/// the next, so that a board's cost can be estimated from them.
struct InstructionFigure: Sendable {
    var rate: Int
    /// Notifications the agent handled in the window: the `range` messages it delivered, over
    /// the peers per notification.
    var notifications: Int
    var instructions: Int
    /// Distinct 64-byte lines of code executed in the window, in every object of the process:
    /// what a notification that finds the instruction cache cold (at 100/s, 80 ms after the
    /// last, the broker and the kernel have run in between) fetches again, about all of it, since
    /// the same path runs for every notification.
    var codeLines: Int
    var perNotification: Double { notifications > 0 ? Double(instructions) / Double(notifications) : .nan }
    var codeKiB: Double { Double(codeLines * 64) / 1024 }
}

/// The distinct 64-byte lines of the instructions a callgrind profile made with
/// `--dump-instr=yes` counted: each cost line begins with its instruction's address, absolute
/// (`0x…`), relative to the one before (`+n`, `-n`) or the same (`*`); the cost line after a
/// `calls=` line is the call's, at the call instruction, counted already.
func executedCodeLines(inCallgrindProfile text: Substring) -> Int {
    var lines = Set<UInt64>()
    var address: UInt64 = 0
    var afterCall = false
    for line in text.split(separator: "\n") {
        guard let first = line.first else { continue }
        let isCost = first.isNumber || first == "+" || first == "-" || first == "*"
        guard isCost else {
            afterCall = line.hasPrefix("calls=")
            continue
        }
        let token = line.prefix { $0 != " " }
        func number(_ text: Substring) -> UInt64 {
            text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) ?? 0 : UInt64(text) ?? 0
        }
        switch first {
        case "+": address &+= number(token.dropFirst())
        case "-": address &-= number(token.dropFirst())
        case "*": break
        default: address = number(token)
        }
        if !afterCall { lines.insert(address >> 6) }
        afterCall = false
    }
    return lines.count
}

/// Runs the agent under `valgrind --tool=callgrind` at `rate` and counts a window of `seconds`
/// between two dumps (`callgrind_control -d`: each dump holds what ran since the one before).
/// `profile`: where the window's profile is kept, for `callgrind_annotate --inclusive=yes`.
func countAgentInstructions(executable: String, broker: BenchBroker, rate: Int, seconds: Double,
                            profile: String? = nil) throws -> InstructionFigure {
    try countInstructions(of: "the agent", executable: executable, broker: broker, rate: rate, seconds: seconds,
                          requiresBringUp: true, profile: profile) { wrapper, link, writer, directory in
        try startBenchAgent(executable: wrapper, brokerPort: broker.port, link: link, writer: writer, directory: directory,
                            environment: ["SWIFT_DETERMINISTIC_HASHING": "1"], readyWithin: 180)
    }
}

/// The same count for the rendered floor of the agent's own messages (`forward-floor --packets
/// FILE --render`, RenderedMessages.swift) of `traffic`, recorded at `rate`, on the same load: the instructions any gateway that
/// says what the agent says spends in user space, decoding each notification and formatting its
/// numbers and timestamps. What the agent executes beyond it is its own work.
func countRenderedFloorInstructions(of traffic: RecordedTraffic, broker: BenchBroker, rate: Int, seconds: Double) throws -> InstructionFigure {
    let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-floor-instructions")
    let packets = directory.file("packets")
    try traffic.write(to: packets)
    return try countInstructions(of: "the rendered floor", executable: executableDirectory() + "/uwb2mqtt-bench", broker: broker, rate: rate,
                          seconds: seconds, requiresBringUp: false) { wrapper, link, _, directory in
        // valgrind's start takes seconds.
        try startOwnMessagesFloor(executable: wrapper, link: link, brokerPort: broker.port, packets: packets, render: true,
                                  directory: directory, readyWithin: 180)
    }
}

/// Runs `executable` under callgrind, started by `start` with the wrapper that runs it so, fed
/// the bench's notifications at `rate`, and counts its instructions in a window of `seconds`
/// against the notifications whose `range` messages arrived in it. valgrind 3.19 reads no
/// DWARF 5, so it runs a copy without debug information.
private func countInstructions(of name: String, executable: String, broker: BenchBroker, rate: Int, seconds: Double,
                               requiresBringUp: Bool, profile: String? = nil,
                               start: (_ wrapper: String, _ link: String, _ writer: DeviceWriter, _ directory: TemporaryDirectory) throws -> ChildProcess)
    throws -> InstructionFigure {
    for tool in ["/usr/bin/valgrind", "/usr/bin/callgrind_control", "/usr/bin/strip"] where !fileExists(tool) {
        throw BenchError("\(tool) is not installed")
    }
    let directory = try TemporaryDirectory(prefix: "uwb2mqtt-bench-instructions")
    let stripped = directory.file((executable as NSString).lastPathComponent)
    guard wait(for: "/usr/bin/strip", ["--strip-debug", "-o", stripped, executable], in: directory) else {
        throw BenchError("strip --strip-debug \(executable) failed")
    }
    let wrapper = try directory.write("callgrind-wrapper", """
        #!/bin/sh
        exec /usr/bin/valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=\(directory.file("callgrind.%p")) \(stripped) "$@"

        """)
    chmod(wrapper, 0o755)
    let link = directory.file("dwm3001c")
    let subscriber = try Subscriber(port: broker.port, filter: "bench/swift/peer/+/range", clientID: "bench-sub-instructions")
    defer { subscriber.close() }
    let writer = try DeviceWriter(linkPath: link, peers: benchPeers.map(\.address), requiresBringUp: requiresBringUp)
    defer { writer.stop() }
    let process = try start(wrapper, link, writer, directory)
    defer { process.terminate() }
    writer.setRate(measurementsPerSecond: rate)
    sleepSeconds(3)
    let pid = String(process.pid)
    guard wait(for: "/usr/bin/callgrind_control", ["-d", pid], in: directory) else { throw BenchError("callgrind_control -d failed") }
    let delivered0 = subscriber.count
    sleepSeconds(seconds)
    let delivered1 = subscriber.count
    guard wait(for: "/usr/bin/callgrind_control", ["-d", pid], in: directory) else { throw BenchError("callgrind_control -d failed") }
    writer.setRate(measurementsPerSecond: 0)
    let dump = ProcFS.read(directory.file("callgrind.\(pid).2")) ?? ""
    if let profile {
        try? FileManager.default.removeItem(atPath: profile)
        do {
            try FileManager.default.copyItem(atPath: directory.file("callgrind.\(pid).2"), toPath: profile)
        } catch {
            log("cannot keep the profile at \(profile): \(error)")
        }
    }
    guard let line = dump.split(separator: "\n").first(where: { $0.hasPrefix("summary: ") }),
          let instructions = Int(line.dropFirst("summary: ".count).split(separator: " ").first ?? "") else {
        throw BenchError("no summary in callgrind's second dump of \(name)")
    }
    let figure = InstructionFigure(rate: rate, notifications: (delivered1 - delivered0) / benchPeers.count, instructions: instructions,
                                   codeLines: executedCodeLines(inCallgrindProfile: dump[...]))
    guard figure.notifications > 0 else {
        throw BenchError("no range message of \(name) arrived in the \(seconds) s counted: \(ProcFS.read(process.stderrPath) ?? "")")
    }
    log("instructions of \(name) at \(rate)/s under callgrind: \(instructions) for \(figure.notifications) notifications, "
        + "\(Int(figure.perNotification)) per notification, \(figure.codeLines) lines of code (\(Int(figure.codeKiB)) KiB)")
    return figure
}

/// Runs `executable` with `arguments` to its end; true when it exited with 0.
private func wait(for executable: String, _ arguments: [String], in directory: TemporaryDirectory) -> Bool {
    guard let process = try? ChildProcess(executable: executable, arguments: arguments,
                                          stdoutPath: directory.file("command.stdout"), stderrPath: directory.file("command.stderr"))
    else { return false }
    let deadline = monotonicNanoseconds() + 60_000_000_000
    while process.isRunning {
        guard monotonicNanoseconds() < deadline else {
            _ = process.terminate()
            return false
        }
        usleep(10_000)
    }
    if case .exited(0) = process.exitStatus { return true }
    return false
}
