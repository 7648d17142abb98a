#if canImport(Glibc)
import Service
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
        add(rulesCheck(configuration))

        // 4–6. The device: port present, openable, answering UCI.
        for check in await onDedicatedThread({ deviceChecks(configuration, timeout: limits.deviceTimeout) }) {
            add(check)
        }

        // 7. The broker.
        if filesUsable {
            add(await brokerCheck(configuration, password: password, timeout: limits.brokerTimeout))
        } else {
            add(Check("broker", .skip, "not checked: a file the connection needs is missing or unreadable (above)", area: .broker))
        }

        // 8–9. The spool directory and the clock.
        add(spoolCheck(configuration.mqtt.spoolDir))
        add(clockCheck())
        return checks
    }

    // MARK: - Rules

    static func rulesCheck(_ configuration: AgentConfiguration) -> Check {
        let path = configuration.rules
        switch FileAccess.check(path) {
        case .missing:
            return Check("rules", .fail, "rules names \(path), which does not exist",
                         hint: "copy /usr/share/doc/uwb2mqtt/rules.yaml (or deploy/rules.yaml) there", area: .configuration)
        case .notAFile(let kind):
            return Check("rules", .fail, "rules names \(path), which is \(kind), not a file", hint: "correct the path", area: .configuration)
        case .unreadable(let reason):
            return Check("rules", .fail, "\(path): \(currentUserName()) cannot read it (\(reason))",
                         hint: "chgrp uwb2mqtt \(path); chmod g+r \(path)", area: .configuration)
        case .readable:
            let findings = CheckCommand.validateRules(path: path, configuration: configuration)
            if let error = findings.first(where: { $0.severity == .error }) {
                return Check("rules", .fail, error.message, hint: "`uwb2mqtt check` lists every problem", area: .configuration)
            }
            if let warning = findings.first(where: { $0.severity == .warning }) {
                return Check("rules", .warn, warning.message, area: .configuration)
            }
            let note = findings.first.map { " (" + $0.message.replacing("rules: ", with: "") + ")" } ?? " and valid"
            return Check("rules", .ok, "\(path) is present" + note, area: .configuration)
        }
    }

    // MARK: - Device

    /// Runs blocking work (serial I/O with timeouts) on its own thread, so that it never holds one
    /// of Swift concurrency's few threads while the MQTT client's event pump needs one.
    static func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DetachedThread.start(name: "uwb2mqtt-doctor") { continuation.resume(returning: body()) }
        }
    }

    static func deviceChecks(_ configuration: AgentConfiguration, timeout: Duration) -> [Check] {
        let port = configuration.device.port
        let options = TransportOptions(baudRate: configuration.device.baud)
        if port.lowercased() == "auto" {
            let candidates: [SerialPortInfo]
            do {
                candidates = try autoCandidates()
            } catch {
                return [Check("device port", .fail, "cannot list serial ports: \(error.message)", area: .device),
                        Check("device UCI", .skip, "not checked: no port", area: .device)]
            }
            guard !candidates.isEmpty else {
                return [Check("device port", .fail, "auto: no serial port with the DWM3001C's USB id 1915:520F",
                              hint: "plug the DWM3001CDK in by its J20 USB socket (J9 is the J-Link); `uwb2mqtt ports` lists the ports there are",
                              area: .device),
                        Check("device UCI", .skip, "not checked: no port", area: .device)]
            }
            var checks = [Check("device port", .ok, "auto: " + candidates.map { describe($0) }.joined(separator: ", "), area: .device)]
            // The CLI firmware has the same USB id: try each candidate until one answers UCI.
            var last: [Check] = []
            for candidate in candidates {
                last = [accessCheck(path: candidate.path)]
                if last[0].verdict == .fail { continue }
                last.append(uciCheck(port: candidate.path, options: options, timeout: timeout))
                if last[1].verdict == .ok { break }
            }
            checks += last
            if last.count == 1 { checks.append(Check("device UCI", .skip, "not checked: the port cannot be opened", area: .device)) }
            return checks
        }
        if port.lowercased().hasPrefix("tcp:") {
            return [Check("device port", .ok, "\(port) (a network bridge; reached by the UCI probe)", area: .device),
                    uciCheck(port: port, options: options, timeout: timeout)]
        }

        // A device path, often a udev link (/dev/dwm3001c, /dev/serial/by-id/…).
        guard let resolved = realpath(port, nil) else {
            let code = errno
            var status = stat()
            let dangling = lstat(port, &status) == 0
            let detail = dangling ? "\(port) is a link to a device that does not exist (unplugged?)"
                                  : "\(port): \(code == ENOENT ? "no such device" : String(cString: strerror(code)))"
            return [Check("device port", .fail, detail,
                          hint: "plug the board in by its J20 USB socket; `uwb2mqtt ports` lists the ports there are; /dev/dwm3001c needs udev/99-uwb2mqtt.rules; or set device.port: auto",
                          area: .device),
                    Check("device UCI", .skip, "not checked: no port", area: .device)]
        }
        let node = String(cString: resolved)
        free(resolved)
        var checks = [Check("device port", .ok, node == port ? port : "\(port) → \(node)", area: .device)]
        let access = accessCheck(path: port)
        checks.append(access)
        if access.verdict == .fail {
            checks.append(Check("device UCI", .skip, "not checked: the port cannot be opened", area: .device))
        } else {
            checks.append(uciCheck(port: port, options: options, timeout: timeout))
        }
        return checks
    }

    static func describe(_ port: SerialPortInfo) -> String {
        port.path + (port.serialNumber.map { " (serial \($0))" } ?? "")
    }

    /// May this process open the port, and will the service (user uwb2mqtt with group dialout)?
    static func accessCheck(path: String) -> Check {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return Check("device access", .fail, "\(path): \(String(cString: strerror(errno)))", area: .device)
        }
        let mode = status.st_mode & 0o777
        let group = groupName(status.st_gid)
        let owner = userName(status.st_uid)
        let shown = "\(PasswordFile.octal(mode)) \(owner):\(group)"
        let user = currentUserName()
        let isPseudoTerminal = (realpath(path, nil).map { pointer -> Bool in
            defer { free(pointer) }
            return String(cString: pointer).hasPrefix("/dev/pts/")
        }) ?? false

        if Glibc.access(path, R_OK | W_OK) != 0 {
            let inSessionGroups = processGroups().contains(status.st_gid)
            let listedInGroup = groupMembers(status.st_gid).contains(user)
            let hint: String
            if listedInGroup && !inSessionGroups {
                hint = "\(user) was added to group \(group) after this login: log out and in again (or run `newgrp \(group)`)"
            } else if mode & 0o060 != 0o060 {
                hint = "the group may not read and write it: install udev/99-uwb2mqtt.rules (GROUP=\"dialout\", MODE=\"0660\") and replug"
            } else {
                hint = "sudo usermod -aG \(group) \(user), then log in again; or install udev/99-uwb2mqtt.rules (group dialout, mode 0660)"
            }
            return Check("device access", .fail, "\(path): permission denied for \(user) (\(shown))", hint: hint, area: .device)
        }
        // This user may; will the service? It runs as uwb2mqtt with SupplementaryGroups=dialout.
        if !isPseudoTerminal, mode & 0o006 != 0o006, !(group == "dialout" && mode & 0o060 == 0o060),
           !(owner == "uwb2mqtt" && mode & 0o600 == 0o600) {
            return Check("device access", .warn, "\(path) opens for \(user), but the service (user uwb2mqtt, group dialout) may not (\(shown))",
                         hint: "install udev/99-uwb2mqtt.rules (GROUP=\"dialout\", MODE=\"0660\") and replug", area: .device)
        }
        return Check("device access", .ok, "\(path) opens for \(user) (\(shown))", area: .device)
    }

    /// Opens the port and talks to the device as the agent's bring-up does: CORE_DEVICE_RESET and
    /// the READY it promises, CORE_GET_DEVICE_INFO, CORE_GET_CAPS_INFO; ok with the versions and
    /// capabilities the device reports. A failure says what the device did send, if anything.
    static func uciCheck(port: String, options: TransportOptions, timeout: Duration) -> Check {
        let transport: any ByteTransport
        do {
            transport = try openTransport(port: port, options: options)
        } catch {
            let hint: String? = switch error {
            case .busy: "stop the agent first (sudo systemctl stop uwb2mqtt); ModemManager also grabs new ports (udev rule sets ID_MM_DEVICE_IGNORE)"
            case .permissionDenied: "sudo usermod -aG dialout \(currentUserName()), then log in again; or install udev/99-uwb2mqtt.rules"
            case .unreachable, .timedOut: "is the serial bridge (ser2net) running and listening there?"
            default: nil
            }
            return Check("device UCI", .fail, "cannot open: \(error.message)", hint: hint, area: .device)
        }
        var probe = DeviceProbe(transport: transport, timeout: timeout)
        defer {
            probe.settle()
            transport.close()
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let waited = seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
        let replug = "replug the board; check `dmesg` for USB disconnects (cable, power)"

        /// The check when `command` did not get the answer it asks for: something malformed
        /// or unexpected, silence, or a read that failed.
        func failed(_ outcome: DeviceProbe.Outcome, asking command: String, afterReset: Bool) -> Check {
            switch outcome {
            case let .answered(response): malformed(response.raw)
            case let .malformed(raw): malformed(raw)
            case let .silent(bytes): unanswered(command, bytes: bytes, afterReset: afterReset)
            case let .readFailed(error): Check("device UCI", .fail, "\(port): \(error.message)", hint: replug, area: .device)
            }
        }

        func malformed(_ raw: RawMessage) -> Check {
            Check("device UCI", .fail, "malformed \(raw.name): \(raw.payload.count) bytes", area: .device)
        }

        func unanswered(_ command: String, bytes: Int, afterReset: Bool) -> Check {
            if let seen = probe.seenSummary {
                return Check("device UCI", .fail, "\(port) sent \(seen) but did not answer \(command) within \(waited)",
                             hint: afterReset ? replug : "the device speaks UCI but does not take a reset: replug (power-cycle) the board", area: .device)
            }
            if bytes > 0 {
                return Check("device UCI", .fail, "\(port) sent \(bytes) bytes but no UCI message within \(waited)",
                             hint: "the board may run Qorvo's CLI firmware (same USB id) or another program; flash the UCI build", area: .device)
            }
            return Check("device UCI", .fail, "no answer to \(command) from \(port) within \(waited)",
                         hint: "replug the board; is this the J20 (nRF52833 USB) port and the UCI firmware? on battery-only power the UCI build may not start", area: .device)
        }

        do {
            switch try probe.ask(.coreDeviceReset(resetConfig: 0)) {
            case let .answered(response) where response.status != .ok:
                let seen = probe.seenSummary.map { " (it also sent \($0))" } ?? ""
                return Check("device UCI", .fail, "the device refused CORE_DEVICE_RESET with status \(response.status ?? .unknown)\(seen)",
                             hint: replug, area: .device)
            case .answered:
                break
            case let outcome:
                return failed(outcome, asking: "CORE_DEVICE_RESET", afterReset: false)
            }
            switch try probe.ask(.coreGetDeviceInfo) {
            case let .answered(.coreGetDeviceInfo(status, info)):
                guard status == .ok, let info else {
                    let seen = probe.seenSummary.map { " (it also sent \($0))" } ?? ""
                    return Check("device UCI", .fail, "after a reset the device answered CORE_GET_DEVICE_INFO with status \(status)\(seen)",
                                 hint: replug, area: .device)
                }
                var text = "UCI \(info.uciVersion), MAC \(info.macVersion), PHY \(info.phyVersion)"
                if let qorvo = info.qorvo {
                    text += ", firmware \(qorvo.firmwareVersionString), device id 0x\(String(qorvo.deviceID, radix: 16, uppercase: true))"
                }
                // The agent ranges without capabilities too: their absence is said, not failed.
                switch try probe.ask(.coreGetCapsInfo) {
                case let .answered(.coreGetCapsInfo(.ok, tlvs)):
                    let capabilities = DeviceCapabilities(tlvs: tlvs, uciVersion: info.uciVersion)
                    text += "; capabilities: angle of arrival \(capabilities.hasAoA ? "yes" : "no"), "
                        + "extended MAC addresses \(capabilities.hasExtendedMACAddress ? "yes" : "no")"
                case let .answered(response):
                    text += "; CORE_GET_CAPS_INFO failed (\(response.status ?? .unknown)): the agent ranges without capabilities"
                default:
                    text += "; no capabilities (CORE_GET_CAPS_INFO unanswered): the agent ranges without them"
                }
                return Check("device UCI", .ok, text + "; reset ok", area: .device)
            case let outcome:
                return failed(outcome, asking: "CORE_GET_DEVICE_INFO", afterReset: true)
            }
        } catch {
            return Check("device UCI", .fail, "cannot write to \(port): \(error.message)", area: .device)
        }
    }

    // MARK: - Broker

    enum BrokerOutcome: Sendable {
        case connected
        case failed(MQTTError)
        case timedOut
    }

    static func brokerCheck(_ configuration: AgentConfiguration, password: String?, timeout: Duration) async -> Check {
        let url = configuration.mqtt.broker.url
        var settings: MQTTConfiguration
        do {
            // A client id of its own: reusing the agent's would make the broker disconnect the agent.
            settings = try MQTTConfiguration(url: url, clientID: String((configuration.clientID + "-doctor").prefix(64)))
        } catch {
            return Check("broker", .fail, error.description, area: .configuration)
        }
        settings.username = configuration.mqtt.broker.username
        settings.password = password
        settings.caFile = configuration.mqtt.broker.caFile
        settings.certFile = configuration.mqtt.broker.certFile
        settings.keyFile = configuration.mqtt.broker.keyFile
        settings.keepaliveSeconds = Int(configuration.mqtt.broker.keepalive.seconds)
        let who = configuration.mqtt.broker.username.map { "as \($0)" } ?? "anonymously"

        let fixed = settings
        let outcome = await onDedicatedThread { brokerOutcome(fixed, timeout: timeout) }
        return verdict(for: outcome, url: url, who: who, configuration: configuration, timeout: timeout)
    }

    /// Connects once on an event loop of its own and reports how the first attempt ended.
    static func brokerOutcome(_ settings: MQTTConfiguration, timeout: Duration) -> BrokerOutcome {
        let loop: EventLoop
        do {
            loop = try EventLoop()
        } catch {
            return .failed(.invalidConfiguration("\(error)"))
        }
        var outcome: BrokerOutcome?
        let client: MQTTClient
        do {
            client = try MQTTClient(configuration: settings, loop: loop) { event in
                switch event {
                case .connected: outcome = outcome ?? .connected
                case let .disconnected(.failed(error)): outcome = outcome ?? .failed(error)
                default: break
                }
            }
            try client.start()
        } catch {
            return .failed(error)
        }
        // The deadline of the check, not a synchronisation: the connect outcome ends the wait.
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        loop.run(until: { outcome != nil }, deadline: Clocks.monotonic() + seconds)
        client.disconnect(timeout: .milliseconds(500))
        return outcome ?? .timedOut
    }

    static func verdict(for outcome: BrokerOutcome, url: String, who: String, configuration: AgentConfiguration,
                        timeout: Duration = .seconds(5)) -> Check {
        switch outcome {
        case .connected:
            return Check("broker", .ok, "\(url) accepted the connection \(who)", area: .broker)
        case .timedOut:
            return Check("broker", .fail, "\(url): no answer within \(timeout.components.seconds) s",
                         hint: "a firewall dropping packets, or a TLS port given as mqtt:// (use mqtts://)", area: .broker)
        case .failed(let error):
            switch error {
            case .notAuthorized:
                return Check("broker", .fail, "\(url) refused the credentials \(who) (not authorized)",
                             hint: configuration.mqtt.broker.username == nil
                                 ? "the broker does not allow anonymous clients: set mqtt.username and mqtt.password_file"
                                 : "check mqtt.username and the password file; on the broker: sudo mosquitto_passwd /etc/mosquitto/passwd \(configuration.mqtt.broker.username!)",
                             area: .broker)
            case .tls(let reason, _, _):
                return Check("broker", .fail, "\(url): TLS failed: \(reason)",
                             hint: "mqtt.ca_file must be the CA that signed the broker's certificate, the certificate must name the host in mqtt.url, and the clock must be right",
                             area: .broker)
            case .connectionRefused(let reason):
                return Check("broker", .fail, "\(url) unreachable: \(reason)",
                             hint: "is the broker running and listening there? (systemctl status mosquitto; mosquitto 2 listens on localhost only unless a listener is configured)",
                             area: .broker)
            case .fileNotReadable, .invalidConfiguration, .invalidURL:
                return Check("broker", .fail, error.description, area: .configuration)
            default:
                return Check("broker", .fail, "\(url): \(error.description)", area: .broker)
            }
        }
    }

    // MARK: - Spool and clock

    /// The spool must take a file: events and retained state are journaled there while the broker is away.
    static func spoolCheck(_ directory: String) -> Check {
        var status = stat()
        guard stat(directory, &status) == 0 else {
            return Check("spool dir", .warn, "\(directory) does not exist yet",
                         hint: "systemd creates /var/lib/uwb2mqtt (StateDirectory=uwb2mqtt) and install.sh does too; for another path: sudo install -d -o uwb2mqtt -m 0750 \(directory)",
                         area: .configuration)
        }
        guard (status.st_mode & S_IFMT) == S_IFDIR else {
            return Check("spool dir", .fail, "\(directory) is not a directory", area: .configuration)
        }
        var template = Array("\(directory)/.uwb2mqtt-doctor-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if descriptor >= 0 {
            close(descriptor)
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
            return Check("spool dir", .ok, "\(directory) is writable", area: .configuration)
        }
        let reason = String(cString: strerror(errno))
        let owner = userName(status.st_uid)
        if status.st_uid != geteuid() && owner == "uwb2mqtt" {
            return Check("spool dir", .warn, "\(directory) is not writable by \(currentUserName()) (\(reason)); it belongs to \(owner)",
                         hint: "run doctor as the service user: sudo -u uwb2mqtt uwb2mqtt doctor", area: .configuration)
        }
        return Check("spool dir", .fail, "\(directory) is not writable by \(currentUserName()) (\(reason))",
                     hint: "sudo chown uwb2mqtt \(directory); chmod 0750 \(directory)", area: .configuration)
    }

    /// A Pi has no real-time clock: until NTP syncs it may think it is 1970 or its last shutdown,
    /// which breaks TLS certificate checks and every `ts` the agent publishes.
    static func clockCheck() -> Check {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        let year = Int(parts.tm_year) + 1900
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let stamp = "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
        guard year >= 2024 else {
            return Check("clock", .fail, "the clock reads \(stamp)",
                         hint: "enable time synchronisation (sudo timedatectl set-ntp true) and check the network; TLS and timestamps need the right time",
                         area: .configuration)
        }
        switch KernelClock.synchronised() {
        case false?:
            return Check("clock", .warn, "\(stamp), not synchronised (the kernel reports no NTP discipline)",
                         hint: "sudo timedatectl set-ntp true (systemd-timesyncd) or install chrony", area: .configuration)
        case true?:
            return Check("clock", .ok, "\(stamp), synchronised", area: .configuration)
        case nil:
            return Check("clock", .ok, "\(stamp) (synchronisation not checked on this platform)", area: .configuration)
        }
    }

    // MARK: - Users and groups

    static func userName(_ uid: uid_t) -> String {
        if let entry = getpwuid(uid), let name = entry.pointee.pw_name { return String(cString: name) }
        return "\(uid)"
    }

    static func groupName(_ gid: gid_t) -> String {
        if let entry = getgrgid(gid), let name = entry.pointee.gr_name { return String(cString: name) }
        return "\(gid)"
    }

    /// Users listed as members of a group in the group database (not those with it as primary group).
    static func groupMembers(_ gid: gid_t) -> [String] {
        guard let entry = getgrgid(gid), var member = entry.pointee.gr_mem else { return [] }
        var names: [String] = []
        while let name = member.pointee {
            names.append(String(cString: name))
            member += 1
        }
        return names
    }

    /// The groups this process has now (effective group and supplementary groups).
    static func processGroups() -> Set<gid_t> {
        var groups = [gid_t](repeating: 0, count: Int(max(getgroups(0, nil), 0)) + 1)
        let count = getgroups(Int32(groups.count), &groups)
        return Set(groups.prefix(Int(max(count, 0)))).union([getegid()])
    }
}

private extension String {
    /// The string padded with spaces (or cut) to `width` characters, for aligned columns.
    func paddedTo(_ width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}
