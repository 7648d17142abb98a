#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Synchronization

/// A real `/usr/sbin/mosquitto` on 127.0.0.1, one per test, on ports nobody else uses.
///
/// The config is generated into a temporary directory:
/// * `user root`: CI runs as root and mosquitto would otherwise drop to user `mosquitto`, which
///   cannot read the test's 0700 temp directory (password file, keys) — design notes §4.2;
/// * `persistence false`, so nothing outlives the test; `log_dest stderr` + `log_type all`, so the
///   log (one file per run) shows SUBACKs, which `MQTTTestSubscriber` waits for.
///
/// `stop()` is by PID (SIGTERM, then SIGKILL) and also runs from `deinit`.
public final class MosquittoBroker: Sendable {
    /// A TLS listener: the broker's certificate and, when `requireClientCertificate`, client
    /// certificates signed by `caFile` are required.
    public struct TLSListener: Sendable {
        public var caFile: String
        public var certFile: String
        public var keyFile: String
        public var requireClientCertificate: Bool

        public init(caFile: String, certFile: String, keyFile: String, requireClientCertificate: Bool = false) {
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
            self.requireClientCertificate = requireClientCertificate
        }
    }

    public struct Options: Sendable {
        /// When set, anonymous clients are refused and this mosquitto password file is used.
        public var passwordFile: String?
        /// When set, a second listener speaks TLS on `tlsPort`.
        public var tls: TLSListener?
        /// Lines appended to the generated config (a bridge to another broker, for example).
        public var extraConfig: [String]

        public init(passwordFile: String? = nil, tls: TLSListener? = nil, extraConfig: [String] = []) {
            self.passwordFile = passwordFile
            self.tls = tls
            self.extraConfig = extraConfig
        }
    }

    /// The plain MQTT port.
    public let port: UInt16
    /// The TLS port when `Options.tls` was given.
    public let tlsPort: UInt16?
    public let directory: TemporaryDirectory
    private let configPath: String
    /// The running broker and how many times it was started (names the log file of each run).
    private let run = Mutex<(process: ChildProcess?, generation: Int)>((nil, 0))

    /// `mqtt://127.0.0.1:PORT`
    public var url: String { "mqtt://127.0.0.1:\(port)" }
    /// `mqtts://localhost:TLSPORT` (the test CA's server certificate names localhost and 127.0.0.1).
    public var tlsURL: String? { tlsPort.map { "mqtts://localhost:\($0)" } }

    private init(port: UInt16, tlsPort: UInt16?, directory: TemporaryDirectory, configPath: String) {
        self.port = port
        self.tlsPort = tlsPort
        self.directory = directory
        self.configPath = configPath
    }

    /// Writes the config, starts mosquitto and waits until every listener accepts connections.
    public static func start(_ options: Options = Options()) async throws(TestSupportError) -> MosquittoBroker {
        let directory = try TemporaryDirectory(prefix: "uwb2mqtt-mosquitto")
        let port = try freeLoopbackPort()
        let tlsPort = options.tls == nil ? nil : try freeLoopbackPort()

        var lines = [
            "user root",
            "persistence false",
            "log_dest stderr",
            "log_type all",
            "listener \(port) 127.0.0.1",
        ]
        if let passwordFile = options.passwordFile {
            lines += ["allow_anonymous false", "password_file \(passwordFile)"]
        } else {
            lines += ["allow_anonymous true"]
        }
        if let tls = options.tls, let tlsPort {
            lines += [
                "listener \(tlsPort) 127.0.0.1",
                "cafile \(tls.caFile)",
                "certfile \(tls.certFile)",
                "keyfile \(tls.keyFile)",
                "require_certificate \(tls.requireClientCertificate)",
            ]
        }
        lines += options.extraConfig
        let configPath = try directory.write("mosquitto.conf", lines.joined(separator: "\n") + "\n")
        let broker = MosquittoBroker(port: port, tlsPort: tlsPort, directory: directory, configPath: configPath)
        try await broker.launch()
        return broker
    }

    deinit {
        stop()
    }

    /// Stops the broker by PID and waits until it has exited. Idempotent.
    public func stop() {
        let process = run.withLock { state -> ChildProcess? in
            defer { state.process = nil }
            return state.process
        }
        process?.terminate()
    }

    /// Stops and starts the broker again on the same port(s), as a broker restart in production does.
    public func restart() async throws(TestSupportError) {
        stop()
        try await launch()
    }

    /// Sends a signal to the running broker: `SIGSTOP`/`SIGCONT` freeze it without closing sockets,
    /// which is how a test keeps QoS 1 messages unacknowledged.
    public func kill(_ signal: Int32) {
        run.withLock { $0.process }?.kill(signal)
    }

    public var pid: pid_t? { run.withLock { $0.process?.pid } }

    /// The log of the current (or last) run.
    public var log: String {
        readText(logPath(generation: run.withLock { $0.generation }))
    }

    /// Waits until the current run's log contains `text` (e.g. `Sending SUBACK to client-1`).
    public func waitForLog(containing text: String, timeout: Duration = .seconds(10)) async throws(TestSupportError) {
        let deadline = ContinuousClock.now + timeout
        while !log.contains(text) {
            if ContinuousClock.now >= deadline {
                throw .timedOut(waitingFor: "broker log line containing \"\(text)\"", after: timeout, detail: "log:\n\(log)")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    private func logPath(generation: Int) -> String {
        directory.file("mosquitto-\(generation).log")
    }

    private func launch() async throws(TestSupportError) {
        let generation = run.withLock { state in
            state.generation += 1
            return state.generation
        }
        let logFile = logPath(generation: generation)
        let process = try ChildProcess(executable: "/usr/sbin/mosquitto", arguments: ["-c", configPath],
                                       stdoutPath: directory.file("mosquitto-\(generation).stdout"), stderrPath: logFile)
        run.withLock { $0.process = process }
        for listening in [port] + (tlsPort.map { [$0] } ?? []) {
            do {
                try await waitForPort(listening, timeout: .seconds(10))
            } catch {
                let status = process.exitStatus.map { "mosquitto \($0)" } ?? "mosquitto still running"
                stop()
                throw .brokerDidNotStart(port: listening, log: "(\(status))\n" + readText(logFile)
                                         + readText(directory.file("mosquitto-\(generation).stdout")))
            }
        }
    }
}
