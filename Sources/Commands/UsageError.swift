/// A command line the command cannot run: an unknown option, a missing value, an operand too
/// many. Every command reports it the same way, to stderr with exit status 2 (cli-and-config.md).
struct UsageError: Error, Equatable {
    /// What is wrong, without the program or command name: `unknown option '--bogus'`.
    let problem: String

    init(_ problem: String) {
        self.problem = problem
    }

    /// The line printed to stderr: `uwb2mqtt: check: unknown option '--bogus' (run 'uwb2mqtt help check')`,
    /// or without a command (an unknown command name) `… (run 'uwb2mqtt help')`.
    func message(command: String?) -> String {
        guard let command else { return "uwb2mqtt: \(problem) (run 'uwb2mqtt help')" }
        return "uwb2mqtt: \(command): \(problem) (run 'uwb2mqtt help \(command)')"
    }
}
