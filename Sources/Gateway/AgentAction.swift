import Vocabulary
import DeviceLink

/// What the core asks the shell to do besides publishing (its `outbox`), in the order decided.
enum AgentAction: Sendable {
    /// A command for the device's session (start, stop, reset, a requested session…).
    case device(DeviceSession.Event)
    /// A line for the log.
    case log(LogLevel, String)
    /// Read and validate the rules file at `path`; the outcome comes back as `rulesLoaded`.
    case loadRules(path: String, trigger: RulesTrigger)
    /// Validate `bytes` as a rules file (`origin` names them in messages), then write them to
    /// `path` (the old file kept as a backup) and load it; the outcome comes back as `rulesLoaded`.
    case setRules(bytes: [UInt8], origin: String, path: String, trigger: RulesTrigger)
    /// Watch the rules file at `path` for changes (instead of the one watched so far).
    case watchRules(path: String)
    /// Tell systemd's watchdog that the loop runs.
    case feedWatchdog
    /// Keep `input`, taken at `time` (wall clock), in the recording (only while
    /// `AgentCore.recordsInputs`).
    case record(RecordedInput, at: Double)
}
