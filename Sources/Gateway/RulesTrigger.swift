/// Why the rules file is read: the log line and the answer depend on it.
public enum RulesTrigger: Sendable {
    /// The agent starts: a broken file leaves it running without rules.
    case start
    /// SIGHUP.
    case signal
    /// The file changed on disk.
    case fileChanged
    /// A `reload_rules` or `rules_set` request, answered with the outcome.
    case request(Request)
    /// New rules on the site-wide `rules_topic`.
    case site(topic: String)

    /// What happened to the rules, for the log line of a success.
    var done: String {
        switch self {
        case .start: "loaded"
        case let .request(request) where request.name == .rulesSet: "written by rules_set and loaded"
        case let .site(topic): "written from \(topic) and loaded"
        default: "reloaded"
        }
    }
}
