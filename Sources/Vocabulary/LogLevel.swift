/// Severity of a log line: what the agent, the fuse and the device link write, and the threshold that lets it through.
public enum LogLevel: Int, Comparable, Sendable, CustomStringConvertible {
    case error = 0, warning, info, debug

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
    public var description: String {
        switch self { case .error: "error"; case .warning: "warning"; case .info: "info"; case .debug: "debug" }
    }
}
