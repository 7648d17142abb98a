/// The exit statuses of every `uwb2mqtt` command (cli-and-config.md), named here once so that a
/// command's code, its help and the spec say the same thing.
public enum ExitStatus {
    public static let success: Int32 = 0
    /// Bad input or configuration: the user has something to fix in a file.
    public static let failure: Int32 = 1
    /// Bad usage: the command line itself is wrong.
    public static let usage: Int32 = 2
    /// The device or the broker could not be reached (one-shot commands only: `run` retries).
    public static let unreachable: Int32 = 3

    /// What a command's help says about one of its statuses: `1 when not`.
    struct Meaning: Sendable {
        let status: Int32
        let text: String

        init(_ status: Int32, _ text: String) {
            self.status = status
            self.text = text
        }
    }

    /// The status every command shares, added to each command's help.
    static let usageMeaning = Meaning(usage, "for bad usage")

    /// What each status means across the commands (`help`, the manual page).
    static let summary = [
        Meaning(success, "ok"), Meaning(failure, "bad input or config"), Meaning(usage, "bad usage"),
        Meaning(unreachable, "device or broker unreachable (one-shot commands)"),
    ]
}
