import Synchronization

/// Numbers the output files of commands run in the same directory (parallel mosquitto_pub calls).
private let commandCounter = Atomic<Int>(0)

/// Runs a short command-line tool to completion (openssl, mosquitto_passwd) and fails with its
/// output when it does not exit 0, so a broken fixture says why.
///
/// Output goes to files in `directory` (no pipes: a full pipe would block the child).
/// `describedAs` replaces the command line in the error when the arguments hold a secret.
func runCommand(_ executable: String, _ arguments: [String], in directory: TemporaryDirectory,
                describedAs: String? = nil, timeout: Duration = .seconds(60)) async throws(TestSupportError) {
    let name = (executable.split(separator: "/").last.map(String.init) ?? "command") + "-\(commandCounter.add(1, ordering: .relaxed).newValue)"
    let out = directory.file("\(name).out")
    let err = directory.file("\(name).err")
    let child = try ChildProcess(executable: executable, arguments: arguments, stdoutPath: out, stderrPath: err)
    let status = await child.waitForExit(timeout: timeout) ?? child.terminate(grace: .seconds(1))
    guard status == .exited(0) else {
        throw .commandFailed(command: describedAs ?? ([executable] + arguments).joined(separator: " "),
                             status: status.description, output: readText(out) + readText(err))
    }
}
