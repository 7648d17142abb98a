import Service
import Gateway
import FoundationEssentials
import MQTTClient
import YAMLCoding
import Vocabulary

/// `uwb2mqtt check [--config FILE] [--rules FILE]` (cli-and-config.md): validates the config (and
/// the rules) without touching the device or the broker, so it can run anywhere — in CI on a
/// config repository, before `systemctl reload`, on a laptop without the board.
///
/// Problems are printed as `file:line:column: message` (the YAML decoder stops at the first
/// error in a file, so a file reports at most one). Files the config names but that are missing
/// are warnings here, not errors, because `check` often runs on a machine other than the gateway;
/// `doctor`, which runs on the gateway, fails on them.
public struct CheckCommand: Command {
    static let rules = Option.value(
        "--rules", "FILE",
        help: "the rules file to validate instead of the one the configuration names; here a missing file is an error")

    static let declaration = CommandDeclaration(
        name: "check", abstract: "validate config and rules without device or broker",
        discussion: """
        Each problem is printed as file:line:column: message.

        Files the configuration names (mqtt.password_file, ca_file, cert_file, key_file, and rules
        unless --rules is given) are only looked for: a missing one is a warning ("warning: …"), since
        check may run on another machine than the gateway. `uwb2mqtt doctor` fails on them.
        """,
        arguments: [.option(.agentConfiguration), .option(rules)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "when valid (warnings allowed)"),
                       ExitStatus.Meaning(ExitStatus.failure, "when not")])

    var configPath: String
    /// The rules to validate instead of those the configuration names.
    var rulesPath: String?

    init(_ arguments: ParsedArguments) {
        configPath = arguments.value(.agentConfiguration) ?? AgentConfiguration.defaultPath
        rulesPath = arguments.value(Self.rules)
    }

    /// One thing `check` found.
    public struct Finding: Sendable, Equatable, CustomStringConvertible {
        public enum Severity: Sendable, Equatable {
            /// Makes the files invalid: exit 1.
            case error
            /// Worth fixing, but the agent would start: printed as `warning: …`.
            case warning
            /// Information (what was and was not checked).
            case note
        }
        public var severity: Severity
        /// The message; for errors in a file, `file:line:column: message`.
        public var message: String

        public init(_ severity: Severity, _ message: String) {
            self.severity = severity
            self.message = message
        }

        public static func error(_ message: String) -> Finding { Finding(.error, message) }
        public static func warning(_ message: String) -> Finding { Finding(.warning, message) }
        public static func note(_ message: String) -> Finding { Finding(.note, message) }

        /// The line `check` prints.
        public var description: String {
            switch severity {
            case .error: message
            case .warning: "warning: " + message
            case .note: message
            }
        }
    }

    /// What `check` found for one config (and rules) file.
    public struct Report: Sendable {
        /// The configuration, when it is valid.
        public var configuration: AgentConfiguration?
        public var findings: [Finding]
        public var isValid: Bool { !findings.contains { $0.severity == .error } }
        public var exitStatus: Int32 { isValid ? ExitStatus.success : ExitStatus.failure }
    }

    /// Prints the report: errors and warnings to `console.errors`, notes and the final verdict to
    /// `console.output`.
    func run(_ console: Console) -> Int32 {
        let report = Self.check(configPath: configPath, rulesPath: rulesPath)
        for finding in report.findings {
            finding.severity == .note ? console.output(finding.description) : console.errors(finding.description)
        }
        let warnings = report.findings.filter { $0.severity == .warning }.count
        if report.isValid {
            console.output("\(configPath): ok" + (warnings > 0 ? " (\(warnings) warning\(warnings == 1 ? "" : "s"))" : ""))
        }
        return report.exitStatus
    }

    /// Validates `configPath` and the rules (`rulesPath`, else the file the config names).
    public static func check(configPath: String, rulesPath: String? = nil) -> Report {
        var findings: [Finding] = []
        var configuration: AgentConfiguration?
        do {
            configuration = try AgentConfiguration.load(path: configPath)
        } catch let error as SourceError {
            findings.append(.error(error.description))
        } catch let error as ConfigurationError {
            // It already names the file ("cannot read PATH: no such file").
            findings.append(.error(error.description.contains(configPath) ? error.description : "\(configPath): \(error.description)"))
        } catch {
            findings.append(.error("\(configPath): \(error)"))
        }

        if let configuration {
            let locator = KeyLocator(path: configPath)
            if let problem = urlProblem(configuration.mqtt.broker.url) {
                findings.append(.error("\(locator.mark(["mqtt", "url"])): \(problem)"))
            }
            for warning in configuration.warnings {
                findings.append(.warning("\(locator.nearestMark(warning.keyPath)): \(warning.message)"))
            }
            for (key, path) in namedFiles(configuration) {
                let mark = locator.mark(key)
                switch FileAccess.check(path) {
                case .readable:
                    if key == ["mqtt", "password_file"] {
                        do {
                            let (_, warning) = try PasswordFile.read(path: path)
                            if let warning { findings.append(.warning("\(mark): \(warning)")) }
                        } catch {
                            findings.append(.error("\(mark): \(error.description)"))
                        }
                    }
                case .missing:
                    findings.append(.warning("\(mark): \(key.joined(separator: ".")) names \(path), which does not exist"))
                case .notAFile(let kind):
                    findings.append(.warning("\(mark): \(key.joined(separator: ".")) names \(path), which is \(kind), not a file"))
                case .unreadable(let reason):
                    findings.append(.warning("\(mark): \(key.joined(separator: ".")) names \(path), which \(currentUserName()) cannot read (\(reason))"))
                }
            }
        }

        // The rules: the file --rules names (must exist), else the one the config names (may not, here).
        let explicit = rulesPath != nil
        if let rules = rulesPath ?? configuration?.rules {
            let mark = explicit ? rules : KeyLocator(path: configPath).mark(["rules"]).description
            switch FileAccess.check(rules) {
            case .readable:
                findings += validateRules(path: rules, configuration: configuration)
            case .missing:
                findings.append(explicit ? .error("\(rules): no such file")
                                         : .warning("\(mark): rules names \(rules), which does not exist"))
            case .notAFile(let kind):
                findings.append(explicit ? .error("\(rules): it is \(kind), not a file")
                                         : .warning("\(mark): rules names \(rules), which is \(kind), not a file"))
            case .unreadable(let reason):
                findings.append(explicit ? .error("\(rules): cannot read (\(reason))")
                                         : .warning("\(mark): rules names \(rules), which \(currentUserName()) cannot read (\(reason))"))
            }
        }
        return Report(configuration: configuration, findings: findings)
    }

    /// A rules file's problems — errors as file:line:column, and the warnings the `rules` topic
    /// would carry (rules whose peers match no configured peer) — or the note that it is valid.
    /// `configuration` is nil when the configuration itself is invalid.
    static func validateRules(path: String, configuration: AgentConfiguration?) -> [Finding] {
        switch RulesLoading.load(path: path) {
        case let .failure(failure):
            return [.error(failure.description)]
        case let .success(rules):
            let warnings = configuration.map { rules.warnings(for: RulesLoading.identities($0)) } ?? []
            return warnings.map { .warning("\(path): \($0)") } + [.note("\(path): rules valid (sha256 \(rules.sha256.prefix(12))…)")]
        }
    }

    /// The files a valid config names, with the key that names each (for marks and messages).
    static func namedFiles(_ configuration: AgentConfiguration) -> [([String], String)] {
        var files: [([String], String)] = []
        if let path = configuration.mqtt.broker.passwordFile { files.append((["mqtt", "password_file"], path)) }
        if let path = configuration.mqtt.broker.caFile { files.append((["mqtt", "ca_file"], path)) }
        if let path = configuration.mqtt.broker.certFile { files.append((["mqtt", "cert_file"], path)) }
        if let path = configuration.mqtt.broker.keyFile { files.append((["mqtt", "key_file"], path)) }
        return files
    }

    /// What the MQTT client would reject in `mqtt.url` (host, port), which the config loader
    /// checks only for its scheme.
    static func urlProblem(_ url: String) -> String? {
        do {
            _ = try MQTTBrokerAddress(url: url)
            return nil
        } catch {
            return error.description
        }
    }
}
