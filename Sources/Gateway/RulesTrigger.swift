/// Why the rules file is read: the log line and the answer depend on it.
public enum RulesTrigger: Sendable {
    /// The agent starts: a broken file leaves it running without rules.
    case start
    /// SIGHUP.
    case signal
    /// The file changed on disk.
    case fileChanged
    /// A `reload_rules` request, answered with the outcome.
    case request(Request)
}
