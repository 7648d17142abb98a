import Service
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Gateway
import EventLoop
import DeviceLink
import FoundationEssentials
import MQTTClient
import UCI

/// `uwb2mqtt doctor [--config FILE]` (cli-and-config.md): runs on the gateway and answers "why
/// does it not work?" one line per check, each with a verdict and, when not ok, what to do.
///
/// Unlike `check`, it touches the real things: it opens the serial port and brings the device up
/// as the agent does, up to CORE_GET_CAPS_INFO (3 s a step), connects to the broker with the configured credentials (5 s), and
/// writes a probe file into the spool directory. Files the config names must exist here.
///
/// It is a one-shot command, so an unreachable device or broker is exit 3 (cli-and-config.md),
/// while a configuration problem (invalid config, a missing named file, an unwritable spool, a
/// clock in the past) is exit 1 and wins over 3: fixing the config comes first.
public struct DoctorCommand: AsyncCommand {
    static let declaration = CommandDeclaration(
        name: "doctor", abstract: "check config, device and broker, one line each",
        discussion: """
        Checks, one line each with a verdict (ok, warn, FAIL; skip when an earlier failure makes a
        check meaningless) and a hint: the configuration is valid; the files it names exist (password
        file, certificates, rules); the device port is present (for `auto`: a port with the DWM3001C's
        USB id 1915:520F) and this user may open it; the device answers UCI (its UCI and firmware
        versions are shown); the broker is reachable and accepts the credentials; the spool directory
        is writable; the clock is sane and synchronised.

        Stop the service first (sudo systemctl stop uwb2mqtt): the serial port can only be opened by
        one program. Run it as the service user to check that user's permissions:
          sudo -u uwb2mqtt uwb2mqtt doctor
        """,
        arguments: [.option(.agentConfiguration)],
        exitStatuses: [ExitStatus.Meaning(ExitStatus.success, "when nothing failed (warnings allowed)"),
                       ExitStatus.Meaning(ExitStatus.failure, "for a configuration problem"),
                       ExitStatus.Meaning(ExitStatus.unreachable, "when the device or the broker is unreachable")])

    var configPath: String

    init(_ arguments: ParsedArguments) {
        configPath = arguments.value(.agentConfiguration) ?? AgentConfiguration.defaultPath
    }

    /// A check's outcome.
    public enum Verdict: String, Sendable, Equatable {
        case ok
        case warn
        case fail = "FAIL"
        /// Not run, because a check it depends on failed (no device probe without a port).
        case skip
    }

    /// What a failure means for the exit status.
    public enum Area: Sendable, Equatable {
        /// The config, the files it names, the spool directory, the clock: exit 1.
        case configuration
        /// The device could not be found, opened or did not answer: exit 3.
        case device
        /// The broker could not be reached or refused the credentials: exit 3.
        case broker
    }

    /// One line of the report.
    public struct Check: Sendable, Equatable, CustomStringConvertible {
        public var name: String
        public var verdict: Verdict
        public var detail: String
        public var hint: String?
        public var area: Area

        public init(_ name: String, _ verdict: Verdict, _ detail: String, hint: String? = nil, area: Area) {
            self.name = name
            self.verdict = verdict
            self.detail = detail
            self.hint = hint
            self.area = area
        }

        /// `FAIL  broker         mqtt://… refused … — hint: …`: the verdict first so that the
        /// eye (and `grep FAIL`) finds what matters.
        public var description: String {
            let verdictColumn = verdict.rawValue.paddedTo(6)
            let nameColumn = name.paddedTo(15)
            return verdictColumn + nameColumn + detail + (hint.map { " — hint: " + $0 } ?? "")
        }
    }

    /// How long the device and the broker get to answer.
    public struct Limits: Sendable {
        public var deviceTimeout: Duration = .seconds(3)
        public var brokerTimeout: Duration = .seconds(5)
        public init() {}
    }

    /// Runs the checks, prints one line each to `console.output` as it is known, then a summary.
    func run(_ console: Console) async -> Int32 {
        let checks = await Self.diagnose(configPath: configPath) { console.output($0.description) }
        let status = Self.exitStatus(checks)
        let failed = checks.filter { $0.verdict == .fail }.count
        let warned = checks.filter { $0.verdict == .warn }.count
        console.output(failed == 0
                       ? "doctor: all checks passed" + (warned > 0 ? " (\(warned) warning\(warned == 1 ? "" : "s"))" : "")
                       : "doctor: \(failed) check\(failed == 1 ? "" : "s") failed (exit \(status))")
        return status
    }

    /// 0 when nothing failed; 1 when a configuration-area check failed; else 3 when the device
    /// or the broker failed.
    public static func exitStatus(_ checks: [Check]) -> Int32 {
        let failures = checks.filter { $0.verdict == .fail }
        if failures.contains(where: { $0.area == .configuration }) { return ExitStatus.failure }
        if !failures.isEmpty { return ExitStatus.unreachable }
        return ExitStatus.success
    }

    /// Runs every check in order, handing each to `report` as soon as it is known (the device
    /// and broker checks take seconds when they fail), and returns them all.
    public static func diagnose(configPath: String, limits: Limits = Limits(),
                                report: @escaping @Sendable (Check) -> Void = { _ in }) async -> [Check] {
        var checks: [Check] = []
        func add(_ check: Check) {
            checks.append(check)
            report(check)
        }

        // 1. The configuration. Nothing else can be checked without it.
        let configuration: AgentConfiguration
        do {
            configuration = try AgentConfiguration.load(path: configPath)
            if let problem = CheckCommand.urlProblem(configuration.mqtt.broker.url) {
                add(Check("config", .fail, "\(KeyLocator(path: configPath).mark(["mqtt", "url"])): \(problem)",
                          hint: "use mqtt://host[:port] or mqtts://host[:port]", area: .configuration))
                return checks
            }
            add(Check("config", .ok, "\(configPath) is valid", area: .configuration))
            for warning in configuration.warnings {
                add(Check("session key", .warn, warning.message, hint: warning.hint, area: .configuration))
            }
        } catch {
            let text: String = switch error {
            case let error as ConfigurationError:
                error.description.contains(configPath) ? error.description : "\(configPath): \(error.description)"
            default: "\(error)"
            }
            let missing = !FileManager.default.fileExists(atPath: configPath)
            add(Check("config", .fail, text,
                      hint: missing ? "copy /usr/share/doc/uwb2mqtt/config.yaml (or deploy/config.yaml) to \(configPath), or pass --config FILE"
                                    : "fix the file; `uwb2mqtt check --config \(configPath)` validates it without device or broker",
                      area: .configuration))
            return checks
        }

        // 2. The files it names. In doctor a missing one is a failure (in check, a warning).
        var password: String?
        var filesUsable = true
        if let path = configuration.mqtt.broker.passwordFile {
            do {
                let (value, warning) = try PasswordFile.read(path: path)
                password = value
                add(Check("password file", warning == nil ? .ok : .warn, warning ?? "\(path) is readable",
                          hint: warning == nil ? nil : "the password must be readable by root and the service only: chown root:uwb2mqtt \(path)",
                          area: .configuration))
            } catch {
                filesUsable = false
                add(Check("password file", .fail, error.description,
                          hint: "create it with the password only: sudo install -m 0640 -g uwb2mqtt /dev/stdin \(path)", area: .configuration))
            }
        }
        for (key, path) in CheckCommand.namedFiles(configuration) where key != ["mqtt", "password_file"] {
            let name = key.last!.replacing("_", with: " ")
            switch FileAccess.check(path) {
            case .readable:
                add(Check(name, .ok, "\(path) is readable", area: .configuration))
            case .missing:
                filesUsable = false
                add(Check(name, .fail, "\(key.joined(separator: ".")) names \(path), which does not exist",
                          hint: "copy the file there or correct the path", area: .configuration))
            case .notAFile(let kind):
                filesUsable = false
                add(Check(name, .fail, "\(key.joined(separator: ".")) names \(path), which is \(kind), not a file",
                          hint: "correct the path", area: .configuration))
            case .unreadable(let reason):
                filesUsable = false
                add(Check(name, .fail, "\(path): \(currentUserName()) cannot read it (\(reason))",
                          hint: "the service user must read it: chgrp uwb2mqtt \(path); chmod g+r \(path)", area: .configuration))
            }
        }

        // 3. The rules file.
        add(RulesCheck.run(configuration))

        // 4–6. The device: port present, openable, answering UCI.
        for check in await onDedicatedThread({ DeviceChecks.run(configuration, timeout: limits.deviceTimeout) }) {
            add(check)
        }

        // 7. The broker.
        if filesUsable {
            add(await BrokerCheck.run(configuration, password: password, timeout: limits.brokerTimeout))
        } else {
            add(Check("broker", .skip, "not checked: a file the connection needs is missing or unreadable (above)", area: .broker))
        }

        // 8–9. The spool directory and the clock.
        add(SpoolCheck.run(configuration.mqtt.spoolDir))
        add(ClockCheck.run())
        return checks
    }

    /// Runs blocking work (serial I/O with timeouts) on its own thread, so that it never holds one
    /// of Swift concurrency's few threads while the MQTT client's event pump needs one.
    static func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DetachedThread.start(name: "uwb2mqtt-doctor") { continuation.resume(returning: body()) }
        }
    }
}

private extension String {
    /// The string padded with spaces (or cut) to `width` characters, for aligned columns.
    func paddedTo(_ width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}
