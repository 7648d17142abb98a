import EventLoop
import Gateway
import OfflineTools
import FoundationEssentials
import Proximity
import Recording
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `uwb2mqtt replay FILE [--config FILE] [--rules FILE] [--fast] [--svg OUT]` and
/// `uwb2mqtt replay FILE --compare OLD_RULES NEW_RULES`: try rules on a recording before they go
/// live (cli-and-config.md; the recording comes from `record` or `run` with `record:`).
public struct ReplayCommand: Command {
    static let recording = Operand("FILE", .required, .file, help: "the recording (from uwb2mqtt record, or run with record:)")
    static let config = Option.value("--config", "FILE", help: "the agent's configuration, for peer names and the rules path")
    static let rules = Option.value("--rules", "FILE", help: "the rules file to try")
    static let fast = Option.flag("--fast", help: "as fast as possible instead of at recorded timing")
    static let topics = Option.flag(
        "--topics",
        help: "every message the agent would publish about the peers (range, feedback, state, position, event, ranking), "
            + "as TOPIC PAYLOAD lines, not only the events; topics use the configuration's base topic and gateway id")
    static let svg = Option.value(
        "--svg", "OUT", help: "draw distance over time per peer with the rule thresholds, events and signal-loss gaps to OUT (SVG)")
    static let compare = Option.values(
        "--compare", ["OLD_RULES", "NEW_RULES"],
        help: "replay with both rules files and print what changes: events added, removed, or moved in time")

    static let declaration = CommandDeclaration(
        name: "replay", abstract: "replay a recording through decoding, filters and rules",
        discussion: """
        Runs a recording through the same decoding, filters and rules the agent runs and prints the
        events as JSON lines, shaped as the MQTT `event` payloads. Peers are named by --config (else
        by address). Rules come from --rules, else from the config's `rules:`. Recorded timing is kept
        unless --fast. The replay ends at the recording's last packet: nothing is dated after it.
        Damaged parts of a recording are reported on stderr; the rest is replayed.
        """,
        arguments: [.operand(recording), .option(config), .option(rules), .option(fast), .option(topics), .option(svg),
                    .option(compare)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "done"),
                       ExitStatus.Meaning(ExitStatus.failure, "for bad input (an unreadable recording, invalid rules or configuration)")])

    var file: String
    var configPath: String?
    var rulesPath: String?
    var svgPath: String?
    /// The old and the new rules file, when comparing.
    var comparison: (old: String, new: String)?
    /// At recorded timing, or as fast as possible.
    var paced: Bool
    /// Every message the agent would publish, not only the events.
    var allTopics: Bool

    init(_ arguments: ParsedArguments) {
        // The parser has checked that the required operand is there.
        file = arguments.value(Self.recording)!
        configPath = arguments.value(Self.config)
        rulesPath = arguments.value(Self.rules)
        svgPath = arguments.value(Self.svg)
        let compared = arguments.values(Self.compare)
        comparison = compared.count == 2 ? (compared[0], compared[1]) : nil
        paced = !arguments.isSet(Self.fast)
        allTopics = arguments.isSet(Self.topics)
    }

    func run(_ console: Console) -> Int32 {
        let output = console.output
        let errors = console.errors
        var configuration: AgentConfiguration?
        if let configPath {
            do { configuration = try AgentConfiguration.load(path: configPath) } catch {
                errors("uwb2mqtt: \(error)")
                return ExitStatus.failure
            }
        }
        let reader: RecordingReader
        do { reader = try RecordingReader(rotatedFrom: file) } catch {
            errors("uwb2mqtt: cannot read the recording \(file): \(error)")
            return ExitStatus.failure
        }
        func loadRules(_ path: String?) -> Rules? {
            guard let path = path ?? configuration?.rules else {
                errors("uwb2mqtt: no rules: give --rules FILE or --config FILE")
                return nil
            }
            switch RulesLoading.load(path: path) {
            case let .success(rules): return rules
            case let .failure(failure):
                errors("uwb2mqtt: \(failure)")
                return nil
            }
        }
        let peers = configuration?.device.peers ?? PacketRecorder.peers(fromMetadata: reader.header?.metadata ?? "")
        let gateway = configuration?.gateway.id ?? "replay"

        if let (oldPath, newPath) = comparison {
            guard let old = loadRules(oldPath), let new = loadRules(newPath) else { return ExitStatus.failure }
            let before = Replay(rules: old, peers: peers, gatewayID: gateway).run(reader, title: file)
            let after = Replay(rules: new, peers: peers, gatewayID: gateway).run(reader, title: file)
            for line in EventComparison.compare(before.typedEvents, after.typedEvents, start: before.plot.startTime ?? 0) { output(line) }
            return ExitStatus.success
        }

        guard let rules = loadRules(rulesPath) else { return ExitStatus.failure }
        let sessionID = PacketRecorder.sessionID(fromMetadata: reader.header?.metadata ?? "") ?? configuration?.device.sessionID ?? 0
        let replay = Replay(rules: rules, peers: peers, gatewayID: gateway, topics: configuration?.topics, sessionID: sessionID,
                            keepsMessages: allTopics)
        let total = max(1, reader.totalBytes)
        let started = Date()
        let onTerminal = isatty(2) == 1
        var items: [RecordingItem] = []
        var iterator = reader.makeIterator()
        // Read first (a bounded file), then run; pacing at recorded timing happens while printing.
        while let item = iterator.next() {
            items.append(item)
            if onTerminal, Date().timeIntervalSince(started) > 1 {
                Self.writeProgress("\rreading \(Int(100 * Double(iterator.position) / Double(total)))%")
            }
        }
        let outcome = replay.run(items, title: "\(file) with \(rulesPath ?? configuration?.rules ?? "rules")") { count in
            if onTerminal, Date().timeIntervalSince(started) > 1 { Self.writeProgress("\rreplaying \(count) packets") }
        }
        if onTerminal, Date().timeIntervalSince(started) > 1 { Self.writeProgress("\r\u{1B}[K") }
        for problem in outcome.problems { errors("uwb2mqtt: \(problem)") }
        let first = outcome.plot.startTime ?? 0
        let wallStart = Date()
        func pace(_ time: Double) {
            guard paced else { return }
            let due = time - first - Date().timeIntervalSince(wallStart)
            if due > 0 { Clocks.sleep(due) }
        }
        if allTopics {
            for (time, message) in outcome.messages {
                pace(time)
                output(message.topic + " " + String(decoding: message.payload, as: UTF8.self))
            }
        }
        for (line, event) in zip(outcome.events, outcome.typedEvents) where !allTopics {
            pace(event.ts)
            output(line)
        }
        if let svgPath {
            do {
                try SVGPlot.render(outcome.plot).write(toFile: svgPath, atomically: true, encoding: .utf8)
            } catch {
                errors("uwb2mqtt: cannot write \(svgPath): \(error)")
                return ExitStatus.failure
            }
        }
        return ExitStatus.success
    }

    /// A progress line on the terminal, rewritten in place (no newline).
    private static func writeProgress(_ text: String) {
        fputs(text, stderr)
    }
}

/// What changed between two replays of one recording: events are matched by peer, type, rule and
/// transition, in order; an unmatched one was added or removed, a matched one that happened
/// more than 50 ms earlier or later moved.
enum EventComparison {
    /// Seconds with three decimals (`-1.200`), as the comparison prints times and shifts.
    static func milliseconds(_ seconds: Double) -> String {
        let total = Int((abs(seconds) * 1000).rounded())
        let fraction = total % 1000
        let digits = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
        return (seconds < 0 && total > 0 ? "-" : "") + "\(total / 1000).\(digits)"
    }

    static func compare(_ old: [ProximityEvent], _ new: [ProximityEvent], start: Double) -> [String] {
        func key(_ e: ProximityEvent) -> String { "\(e.peer.displayName) \(e.type.rawValue)\(e.rule.map { " " + $0 } ?? "") \(e.from.plainText)→\(e.to.plainText)" }
        func at(_ e: ProximityEvent) -> String {
            let text = Self.milliseconds(e.ts - start) + "s"
            return String(repeating: " ", count: max(0, 9 - text.count)) + text
        }
        var unmatchedOld = Array(old.indices)
        var lines: [String] = []
        var added = 0, removed = 0, moved = 0
        for event in new {
            if let position = unmatchedOld.firstIndex(where: { key(old[$0]) == key(event) }) {
                let previous = old[unmatchedOld.remove(at: position)]
                let shift = event.ts - previous.ts
                if abs(shift) > 0.05 {
                    moved += 1
                    lines.append("~ \(at(event)) \(key(event)) (moved \(shift >= 0 ? "+" : "")\(Self.milliseconds(shift)) s)")
                }
            } else {
                added += 1
                lines.append("+ \(at(event)) \(key(event))")
            }
        }
        for index in unmatchedOld {
            removed += 1
            lines.append("- \(at(old[index])) \(key(old[index]))")
        }
        lines.append("\(added) added, \(removed) removed, \(moved) moved; \(new.count - added - moved) unchanged")
        return lines
    }
}
