import Vocabulary
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Proximity
import UCI
import YAMLCoding
import RulesReading

/// Loads the rules file the agent runs with, and describes the outcome as the `rules` topic and
/// `uwb2mqtt check` report it (rules.md: the whole file is validated before it is swapped in).
public enum RulesLoading {
    /// A load that failed: where and why. `line`/`column` are nil when the file could not be read.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var line: Int?
        public var column: Int?
        public var message: String
        public var file: String

        public var description: String {
            if let line, let column { return "\(file):\(line):\(column): \(message)" }
            return "\(file): \(message)"
        }
    }

    /// Reads and validates `path`.
    public static func load(path: String) -> Result<Rules, Failure> {
        let bytes: [UInt8]
        switch FileSystem.readTextFile(at: path) {
        case let .success(read): bytes = read
        case let .failure(problem):
            return .failure(Failure(line: nil, column: nil, message: problem.missing ? "no such file" : "cannot read it: \(problem)", file: path))
        }
        do {
            return .success(try RulesFile.load(bytes: bytes, file: path))
        } catch {
            return .failure(Failure(line: error.mark.line, column: error.mark.column, message: error.message, file: path))
        }
    }

    /// New rules from MQTT (`rules_set`, the site topic): validated whole first (`origin` names
    /// them in messages: `rules_set:3:7: …`), then written to `path` — the old file kept beside it
    /// as `<path>.bak`, the new one renamed into place, so that nothing ever reads half a file —
    /// and loaded from there like any reload. A failure at any step leaves the active rules, and
    /// the file, as they were.
    public static func install(_ bytes: [UInt8], origin: String, at path: String) -> Result<Rules, Failure> {
        do {
            _ = try RulesFile.load(bytes: bytes, file: origin)
        } catch {
            return .failure(Failure(line: error.mark.line, column: error.mark.column, message: error.message, file: origin))
        }
        if let problem = FileSystem.replace(path, with: bytes, backup: RulesOverMQTT.backupPath(of: path)) {
            return .failure(Failure(line: nil, column: nil, message: "cannot write it: \(problem)", file: path))
        }
        return load(path: path)
    }

    /// The peers of a configuration as the engine knows them.
    package static func identities(_ configuration: AgentConfiguration) -> [PeerIdentity] {
        configuration.device.peers.map { PeerIdentity(address: .short($0.address.value), name: $0.name) }
    }

    /// The `rules` payload (mqtt-api.md): on a failed load `ok` is false, `error` says why and
    /// `sha256` names the rules that stay active. Beyond mqtt-api.md, `thresholds` gives the
    /// active rules' distances (`RulesLoading.thresholds`), so that a viewer can mark them, and
    /// `thresholds_omitted` how many did not fit.
    ///
    /// Retained and journaled, it must stay well below a broker's packet limit (the shipped
    /// mosquitto config's is 64 KiB; over it the broker drops the connection, and the journal
    /// sends it again on every reconnect): `warnings` are summarised beyond
    /// `maximumWarnings` lines, `thresholds` cut at `thresholdBytes`. At every bound of
    /// ``RulesBounds``, with names and patterns of 64 characters, it is under 32 KiB.
    static func payload(ts: Double, ok: Bool, source: String, active: Rules, failure: Failure?, warnings: [String]) -> [JSONMember] {
        payloadFields.members(PayloadSource(ts: ts, ok: ok, source: source, active: active, failure: failure, warnings: warnings,
                                            thresholds: thresholds(active)))
    }

    struct PayloadSource {
        var ts: Double
        var ok: Bool
        var source: String
        var active: Rules
        var failure: Failure?
        var warnings: [String]
        var thresholds: (listed: [JSONValue], omitted: Int)
    }

    static let payloadFields = PayloadFields<PayloadSource>([
        .init(.ts, .timestamp) { .string(Timestamp.rfc3339($0.ts)) },
        .init(.ok, JSONSchema.boolean.described("whether the last load or reload succeeded")) { .bool($0.ok) },
        .init(.source, JSONSchema.string.described("the rules file's path")) { .string($0.source) },
        .init(.sha256, JSONSchema.string.described("of the active rules, which a failed reload keeps")) { .string($0.active.sha256) },
        .init(.error, errorFields.schema.orNull().described("why the last load failed")) { $0.failure.map { .object(errorFields.members($0)) } ?? .null },
        .init(.warnings, JSONSchema.list(of: .string).maxItems(maximumWarnings)
                .described("what the rules select that no peer matches, and such; the last line counts the rest")) {
            .list(summarised($0.warnings).map(JSONValue.string))
        },
        .init(.thresholds, JSONSchema.list(of: thresholdFields.schema).described("the active rules' distances, as many as fit in 16 KiB")) {
            .list($0.thresholds.listed)
        },
        .init(.thresholdsOmitted, JSONSchema.count.described("distances that did not fit")) { .int(Int64($0.thresholds.omitted)) },
    ])

    static let errorFields = PayloadFields<Failure>([
        .init(.line, JSONSchema.integer.minimum(1).orNull()) { $0.line.map { .int(Int64($0)) } ?? .null },
        .init(.column, JSONSchema.integer.minimum(1).orNull()) { $0.column.map { .int(Int64($0)) } ?? .null },
        .init(.message, .string) { .string($0.message) },
    ])

    /// Warning lines published and logged per load; `check` prints them all.
    static let maximumWarnings = 16

    /// `warnings` as the `rules` topic and the log carry them: all of them up to
    /// `maximumWarnings`, else the first ones and a line that counts the rest.
    static func summarised(_ warnings: [String]) -> [String] {
        guard warnings.count > maximumWarnings else { return warnings }
        let shown = maximumWarnings - 1
        return Array(warnings.prefix(shown)) + ["… and \(warnings.count - shown) more warnings (uwb2mqtt check --rules lists them all)"]
    }

    /// Bytes of JSON the `thresholds` list may take; the rest is counted, not listed.
    static let thresholdBytes = 16 << 10

    /// The distances at which the rules decide, each with the rule, what it means and the peers
    /// it applies to (patterns as in the rules file), as each rule kind declares them
    /// (`RuleKinds`): a zone's `enter` and `exit`, a stage band's lower bound (`stage`, all
    /// peers), an approach's `start`, `confirm` and `cancel`. Kind by kind in table order, each
    /// kind's in file order, as many as fit in `thresholdBytes`, and the number that did not.
    static func thresholds(_ rules: Rules) -> (listed: [JSONValue], omitted: Int) {
        let all = allThresholds(rules)
        var listed: [JSONValue] = []
        var bytes = 2
        for entry in all {
            bytes += RenderedJSON(entry).bytes.count + 2
            if bytes > thresholdBytes { break }
            listed.append(entry)
        }
        return (listed, all.count - listed.count)
    }

    private static func allThresholds(_ rules: Rules) -> [JSONValue] {
        RuleKinds.thresholds(in: rules).map { .object(thresholdFields.members($0)) }
    }

    static let thresholdFields = PayloadFields<RuleDistance>([
        .init(.rule, .string) { .string($0.rule) },
        .init(.kind, JSONSchema.string.described("what is decided there: enter, exit (zones), stage (a band's lower bound), start, confirm, cancel (approaches)")) {
            .string($0.kind)
        },
        .init(.distanceM, JSONSchema.number.described("metres")) { .double($0.metres) },
        .init(.peers, JSONSchema.list(of: .string).described("the rule's peer patterns as the rules file writes them")) {
            .list($0.peers.map { .string($0.description) })
        },
    ])
}

/// Whether a file changed on disk since the last look (modification time, size or inode): the
/// judge of `FileChangeWatch`'s "may have changed", which also sees an editor's write-and-rename.
struct FileWatch {
    let path: String
    private var signature: [Int64]?

    init(path: String) {
        self.path = path
        signature = Self.signature(path)
    }

    /// True once per change since the last call.
    mutating func changed() -> Bool {
        let now = Self.signature(path)
        defer { signature = now }
        return now != signature
    }

    private static func signature(_ path: String) -> [Int64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_size), Int64(info.st_ino)]
    }
}
