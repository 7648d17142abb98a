import Gateway
import OfflineTools
import FoundationEssentials
import Proximity
import Recording
#if canImport(Glibc)
import Glibc
#endif

/// `uwb2mqtt replay FILE [--config FILE] [--rules FILE] [--fast] [--svg OUT]` and
/// `uwb2mqtt replay FILE --compare OLD_RULES NEW_RULES`: try rules on a recording before they go
/// live (cli-and-config.md; the recording comes from `record` or `run` with `record:`).
public enum ReplayCommand {
    public static let help = """
    Usage: uwb2mqtt replay FILE [--config FILE] [--rules FILE] [--fast] [--topics] [--svg OUT]
           uwb2mqtt replay FILE [--config FILE] --compare OLD_RULES NEW_RULES

    Runs a recording through the same decoding, filters and rules the agent runs and prints the
    events as JSON lines, shaped as the MQTT `event` payloads. Peers are named by --config (else
    by address). Rules come from --rules, else from the config's `rules:`. Recorded timing is kept
    unless --fast. The replay ends at the recording's last packet: nothing is dated after it.
    Damaged parts of a recording are reported on stderr; the rest is replayed.

    Options:
      --config FILE     the agent's configuration, for peer names and the rules path
      --rules FILE      the rules file to try
      --fast            as fast as possible instead of at recorded timing
      --topics          every message the agent would publish about the peers (range, feedback,
                        state, position, event, ranking), as `TOPIC PAYLOAD` lines, not only the
                        events; topics use the config's base topic and gateway id
      --svg OUT         draw distance over time per peer with the rule thresholds, events and
                        signal-loss gaps to OUT (SVG)
      --compare OLD NEW replay with both rules files and print what changes: events added,
                        removed, or moved in time

    Exit status: 0 done, 1 bad input (unreadable recording, invalid rules or config), 2 bad usage.
    """

    public static func run(arguments: [String]) -> Int32 {
        run(arguments: arguments, output: { print($0) }, errors: { CommandLineTool.printError($0) })
    }

    public static func run(arguments: [String], output: (String) -> Void, errors: (String) -> Void) -> Int32 {
        var file: String?
        var configPath: String?
        var rulesPath: String?
        var svgPath: String?
        var compare: (String, String)?
        var fast = false
        var allTopics = false
        var index = 0
        func value(_ name: String) -> String? {
            guard index + 1 < arguments.count else { return nil }
            index += 1
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--config": guard let v = value(argument) else { return usage("--config needs a FILE", errors) }; configPath = v
            case "--rules": guard let v = value(argument) else { return usage("--rules needs a FILE", errors) }; rulesPath = v
            case "--svg": guard let v = value(argument) else { return usage("--svg needs an OUT file", errors) }; svgPath = v
            case "--fast": fast = true
            case "--topics": allTopics = true
            case "--compare":
                guard let old = value(argument), let new = value(argument) else { return usage("--compare needs OLD_RULES NEW_RULES", errors) }
                compare = (old, new)
            default:
                if argument.hasPrefix("--") { return usage("unknown option '\(argument)'", errors) }
                guard file == nil else { return usage("one recording at a time", errors) }
                file = argument
            }
            index += 1
        }
        guard let file else { return usage("which recording? (uwb2mqtt replay FILE)", errors) }

        var configuration: AgentConfiguration?
        if let configPath {
            do { configuration = try AgentConfiguration.load(path: configPath) } catch {
                errors("uwb2mqtt: \(error)")
                return 1
            }
        }
        let reader: RecordingReader
        do { reader = try RecordingReader(rotatedFrom: file) } catch {
            errors("uwb2mqtt: cannot read the recording \(file): \(error)")
            return 1
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

        if let (oldPath, newPath) = compare {
            guard let old = loadRules(oldPath), let new = loadRules(newPath) else { return 1 }
            let before = Replay(rules: old, peers: peers, gatewayID: gateway).run(reader, title: file)
            let after = Replay(rules: new, peers: peers, gatewayID: gateway).run(reader, title: file)
            for line in EventComparison.compare(before.typedEvents, after.typedEvents, start: before.plot.startTime ?? 0) { output(line) }
            return 0
        }

        guard let rules = loadRules(rulesPath) else { return 1 }
        let sessionID = PacketRecorder.sessionID(fromMetadata: reader.header?.metadata ?? "") ?? configuration?.device.sessionID ?? 0
        let replay = Replay(rules: rules, peers: peers, gatewayID: gateway, topics: configuration?.topics, sessionID: sessionID,
                            keepsMessages: allTopics)
        let total = max(1, reader.totalBytes)
        let started = Date()
        let showProgress = isatty(2) == 1
        var items: [RecordingItem] = []
        var iterator = reader.makeIterator()
        // Read first (a bounded file), then run; pacing at recorded timing happens while printing.
        while let item = iterator.next() {
            items.append(item)
            if showProgress, Date().timeIntervalSince(started) > 1 {
                CommandLineTool.writeError("\rreading \(Int(100 * Double(iterator.position) / Double(total)))%")
            }
        }
        let outcome = replay.run(items, title: "\(file) with \(rulesPath ?? configuration?.rules ?? "rules")") { count in
            if showProgress, Date().timeIntervalSince(started) > 1 { CommandLineTool.writeError("\rreplaying \(count) packets") }
        }
        if showProgress, Date().timeIntervalSince(started) > 1 { CommandLineTool.writeError("\r\u{1B}[K") }
        for problem in outcome.problems { errors("uwb2mqtt: \(problem)") }
        let first = outcome.plot.startTime ?? 0
        let wallStart = Date()
        func pace(_ time: Double) {
            guard !fast else { return }
            let due = time - first - Date().timeIntervalSince(wallStart)
            if due > 0 { sleepSeconds(due) }
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
                return 1
            }
        }
        return 0
    }

    private static func usage(_ message: String, _ errors: (String) -> Void) -> Int32 {
        errors("uwb2mqtt: replay: \(message) (run 'uwb2mqtt help replay')")
        return 2
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
