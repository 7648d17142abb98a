#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Synchronization

/// A child process started with `posix_spawn`, owned by exactly one test.
///
/// Why not `Foundation.Process`: on Linux it hands the spawning thread's signal mask to the child,
/// and Swift Testing runs tests on worker threads that block most signals, so a broker started that
/// way ignores SIGTERM and the test run hangs (swift-corelibs-foundation#4772, design notes §4.2).
/// Here the child starts with an empty signal mask and default dispositions, and with no
/// descriptors of the test process but its stdin, stdout and stderr.
///
/// Safety: the process is stopped by PID — `terminate()` escalates SIGTERM → SIGKILL and reaps it —
/// and `deinit` does the same, so a test that fails (throws before its `defer`) still leaks nothing.
/// After the child is reaped, its PID is never signalled again (the kernel may have reused it).
public final class ChildProcess: Sendable {
    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): return "exited with status \(code)"
            case .signaled(let signal): return "killed by signal \(signal)"
            }
        }
    }

    public let pid: pid_t
    public let executable: String
    public let arguments: [String]
    /// Where the child's standard output goes (a regular file, truncated at start).
    public let stdoutPath: String
    /// Where the child's standard error goes.
    public let stderrPath: String

    /// `nil` while running; set once by whoever reaps the child, under the lock, so that two threads
    /// never both `waitpid` (the second would fail or, worse, reap a reused PID).
    private let termination = Mutex<Termination?>(nil)

    /// Spawns `executable` (an absolute path) with `arguments`; stdin is `/dev/null`, or the FIFO
    /// at `stdinFIFO`, opened read-write so that the child never reads an end of file from it
    /// while the test writes to it now and then. The child inherits the test's environment, with
    /// `environment` added (replacing variables of the same name).
    ///
    /// `descriptors` hands the child some of the test's descriptors under the numbers given (a
    /// pipe as its 3 and 4, say); `ownProcessGroup` starts it in a process group of its own,
    /// whose id is its PID, so that `signalGroup` reaches whatever it starts in turn.
    public init(executable: String, arguments: [String], stdoutPath: String, stderrPath: String,
                environment: [String: String] = [:], stdinFIFO: String? = nil,
                descriptors: [(parent: Int32, child: Int32)] = [], ownProcessGroup: Bool = false) throws(TestSupportError) {
        self.executable = executable
        self.arguments = arguments
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinFIFO ?? "/dev/null", stdinFIFO == nil ? O_RDONLY : O_RDWR, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing else of the test process: tests run in parallel, and a socket of another test
        // (a TCPOutageProxy relay, a client) inherited by this child would stay open after that
        // test closed it — its peer would never see the connection end.
        for (parent, child) in descriptors { posix_spawn_file_actions_adddup2(&actions, parent, child) }
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, (descriptors.map(\.child).max() ?? 2) + 1) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)   // nothing blocked in the child
        posix_spawnattr_setsigdefault(&attributes, &all)  // and every signal at its default action
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownProcessGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        if ownProcessGroup { posix_spawnattr_setpgroup(&attributes, 0) }

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }

        var child: pid_t = 0
        let rc: Int32
        if environment.isEmpty {
            rc = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        } else {
            let envp = Self.mergedEnvironment(environment).map { strdup($0) } + [nil]
            defer { for pointer in envp { free(pointer) } }
            rc = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        }
        guard rc == 0 else {
            throw .spawnFailed(executable: executable, reason: String(cString: strerror(rc)))
        }
        self.pid = child
    }

    deinit {
        terminate(grace: .seconds(2))
    }

    /// The test process's environment as `NAME=value` entries, with `overrides` replacing or adding.
    private static func mergedEnvironment(_ overrides: [String: String]) -> [String] {
        var entries: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            let name = text.prefix { $0 != "=" }
            if overrides[String(name)] == nil { entries.append(text) }
            pointer += 1
        }
        return entries + overrides.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// glibc ≥ 2.34's `posix_spawn_file_actions_addclosefrom_np`, looked up at run time because
    /// the Glibc module does not export it (it is behind _GNU_SOURCE).
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// How it ended, or `nil` while it still runs.
    public var exitStatus: Termination? {
        reapIfExited()
    }

    public var isRunning: Bool { reapIfExited() == nil }

    /// Sends `signal` (e.g. `SIGKILL`, `SIGSTOP`, `SIGCONT`) unless the child was already reaped.
    public func kill(_ signal: Int32) {
        termination.withLock { state in
            if state == nil { _ = Glibc.kill(pid, signal) }
        }
    }

    /// Sends `signal` to the child's process group (started with `ownProcessGroup`): the child and
    /// whatever it started that is still in the group, also after the child itself has ended.
    public func signalGroup(_ signal: Int32) {
        _ = Glibc.kill(-pid, signal)
    }

    /// Stops the child: SIGTERM, up to `grace` for it to exit, then SIGKILL; always reaps it.
    /// Safe to call more than once and from `defer`.
    @discardableResult
    public func terminate(grace: Duration = .seconds(5)) -> Termination {
        if let done = reapIfExited() { return done }
        kill(SIGTERM)
        if let done = waitForExitBlocking(timeout: grace) { return done }
        kill(SIGKILL)
        // After SIGKILL the exit is a matter of the kernel tearing the process down.
        return waitForExitBlocking(timeout: .seconds(3600))!
    }

    /// Waits for the child to exit on its own, polling `waitpid(WNOHANG)` until `timeout`.
    /// Returns `nil` when it is still running at the deadline (the caller decides what then).
    public func waitForExit(timeout: Duration) async -> Termination? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let done = reapIfExited() { return done }
            if ContinuousClock.now >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The synchronous variant for `terminate`, which must work from `defer` and `deinit`.
    private func waitForExitBlocking(timeout: Duration) -> Termination? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let done = reapIfExited() { return done }
            if ContinuousClock.now >= deadline { return nil }
            usleep(2_000)
        }
    }

    /// Reaps the child if it has exited; the result is remembered so the PID is reaped only once.
    private func reapIfExited() -> Termination? {
        termination.withLock { state in
            if let state { return state }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                // WIFEXITED/WEXITSTATUS/WTERMSIG are macros that do not import into Swift.
                let signal = status & 0x7f
                state = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
            } else if result == -1 && errno == ECHILD {
                // Someone else reaped it (should not happen); treat as gone so we never signal a reused PID.
                state = .exited(-1)
            }
            return state
        }
    }
}
