import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real `uwb2mqtt` executable run as a child process on the simulator.
public final class AgentProcess: Sendable {
    public let process: ChildProcess
    public let directory: TemporaryDirectory
    public let name: String

    /// The built executable, beside the test bundle.
    public static var executable: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return bundle.appendingPathComponent("uwb2mqtt").path
    }

    /// Starts `uwb2mqtt run --config … --simulate …` (without `--simulate` when `scenario` is
    /// nil: the config's device port is used); with `shellPrefix` (e.g. `ulimit -f 8;`) the
    /// agent is exec'd from `/bin/sh -c`, so the PID is still the agent's. `environment` is added
    /// to the inherited one (e.g. a glibc tunable for a memory measurement).
    public init(config: String, scenario: String? = "default", directory: TemporaryDirectory, name: String = "agent",
         shellPrefix: String? = nil, environment: [String: String] = [:]) throws {
        self.directory = directory
        self.name = name
        let configPath = try directory.write("\(name).yaml", config)
        var arguments = ["run", "--config", configPath]
        if let scenario {
            let scenarioArgument = scenario.contains("\n") ? try directory.write("\(name)-scenario.yaml", scenario) : scenario
            arguments += ["--simulate", scenarioArgument]
        }
        if let shellPrefix {
            let command = shellPrefix + " exec " + ([Self.executable] + arguments).map { "'\($0)'" }.joined(separator: " ")
            process = try ChildProcess(executable: "/bin/sh", arguments: ["-c", command],
                                       stdoutPath: directory.file("\(name).out"), stderrPath: directory.file("\(name).err"),
                                       environment: environment)
        } else {
            process = try ChildProcess(executable: Self.executable, arguments: arguments,
                                       stdoutPath: directory.file("\(name).out"), stderrPath: directory.file("\(name).err"),
                                       environment: environment)
        }
    }

    public var log: String { (try? String(contentsOfFile: process.stderrPath, encoding: .utf8)) ?? "" }
    public var logLines: [Substring] { log.split(separator: "\n") }

    /// Open file descriptors of the agent (entries of /proc/PID/fd).
    public var openDescriptors: Int { ProcFS.descriptorCount(pid: process.pid) }
    /// Resident set size of the agent in KiB (VmRSS).
    public var residentKiB: Int { ProcFS.residentKiB(pid: process.pid) }
    /// Threads of the agent (entries of /proc/PID/task).
    public var threadCount: Int { ProcFS.threadCount(pid: process.pid) }

    public func stop() { process.terminate() }
}

public enum ProcFS {
    public static func descriptorCount(pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    public static func threadCount(pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count) ?? -1
    }

    /// What each descriptor points at, for a message when the count changed.
    public static func descriptorTargets(pid: pid_t) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return names.sorted { Int($0) ?? 0 < Int($1) ?? 0 }.map { name in
            "\(name)→" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)")) ?? "?")
        }
    }

    public static func residentKiB(pid: pid_t) -> Int { statusKiB(pid: pid, field: "VmRSS:") }

    /// The peak resident set size (VmHWM) in KiB.
    public static func peakResidentKiB(pid: pid_t) -> Int { statusKiB(pid: pid, field: "VmHWM:") }

    static func statusKiB(pid: pid_t, field: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return -1 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }

    /// CPU time the process has used (utime + stime of /proc/PID/stat), in seconds.
    public static func cpuSeconds(pid: pid_t) -> Double {
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return -1 }
        // After the command's closing parenthesis come field 3 (state) onwards: utime is field 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return -1 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Bytes the process caused to be written to storage (`write_bytes` of /proc/PID/io).
    public static func storageBytesWritten(pid: pid_t) -> Int {
        let io = (try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)) ?? ""
        guard let line = io.split(separator: "\n").first(where: { $0.hasPrefix("write_bytes:") }) else { return -1 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }
}

