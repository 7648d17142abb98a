import Foundation
@testable import Commands
import Testing
import TestSupport

/// `uwb2mqtt completion bash|zsh|fish`: scripts made from the declarations, which their shells
/// accept and which complete what the commands accept.
@Suite struct CompletionScriptTests {
    static let commands = CommandLineTool.commands.map { $0.declaration }

    func script(_ shell: CompletionScript.Shell) -> String {
        CompletionScript.script(for: shell, commands: Self.commands)
    }

    @Test(arguments: CompletionScript.Shell.allCases)
    func everyCommandAndOptionIsMentioned(shell: CompletionScript.Shell) {
        let text = script(shell)
        for command in Self.commands {
            #expect(text.contains(shell == .fish ? "-a \(command.name) " : "\(command.name))"), "\(shell): \(command.name)")
            for option in CompletionScript.options(command) {
                let name = shell == .fish ? "-l \(option.name.dropFirst(2)) " : option.name
                #expect(text.contains(name), "\(shell): \(command.name) \(option.name)")
            }
            for word in command.operands.flatMap(\.kind.words) {
                #expect(text.contains(word), "\(shell): \(command.name) \(word)")
            }
        }
    }

    /// Runs `shell` with `arguments` in a temporary directory; returns (status, stdout + stderr).
    func run(_ shell: String, _ arguments: [String], in directory: TemporaryDirectory) async throws -> (Int32, String) {
        let out = directory.file("\(UUID().uuidString).out")
        let child = try ChildProcess(executable: shell, arguments: arguments, stdoutPath: out, stderrPath: out)
        guard let termination = await child.waitForExit(timeout: .seconds(60)) else {
            child.terminate()
            Issue.record("\(shell) did not finish")
            return (-1, "")
        }
        let status: Int32 = if case let .exited(code) = termination { code } else { -1 }
        return (status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
    }

    @Test(arguments: CompletionScript.Shell.allCases)
    func theShellAcceptsTheScript(shell: CompletionScript.Shell) async throws {
        let path = "/usr/bin/" + shell.rawValue
        guard FileManager.default.isExecutableFile(atPath: path) else { return }   // zsh and fish are optional here
        let directory = try TemporaryDirectory(prefix: "completion")
        try script(shell).write(toFile: directory.file("script"), atomically: true, encoding: .utf8)
        let (status, output) = try await run(path, ["-n", directory.file("script")], in: directory)
        #expect(status == 0, "\(output)")
    }

    /// The script `uwb2mqtt completion bash` prints, sourced into bash, completes commands, options
    /// and their values.
    @Test func bashCompletesThroughTheBuiltExecutable() async throws {
        let directory = try TemporaryDirectory(prefix: "completion")
        let scriptPath = directory.file("uwb2mqtt.bash")
        let (status, _) = try await run("/bin/sh", ["-c", "'\(AgentProcess.executable)' completion bash > '\(scriptPath)'"], in: directory)
        #expect(status == 0)
        let probe = """
        source '\(scriptPath)'
        completions() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _uwb2mqtt; echo "${COMPREPLY[*]}"; }
        completions uwb2mqtt sch
        completions uwb2mqtt schema ''
        completions uwb2mqtt check --
        completions uwb2mqtt run --simulate with-
        completions uwb2mqtt help rep
        completions uwb2mqtt completion ''
        """
        let (probed, output) = try await run("/bin/bash", ["--norc", "-c", probe], in: directory)
        #expect(probed == 0, "\(output)")
        #expect(output.split(separator: "\n").map(String.init) == [
            "schema", "config rules api", "--config --rules --help", "with-angles with-faults with-iphone", "replay", "bash zsh fish",
        ])
    }
}
