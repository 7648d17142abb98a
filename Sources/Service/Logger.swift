import Vocabulary
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// One line an entry on stderr, with its level: systemd's journal records them as they are.
public struct Logger: Sendable {
    public var threshold: LogLevel

    public init(threshold: LogLevel = .info) { self.threshold = threshold }

    public func log(_ level: LogLevel, _ message: String) {
        guard level <= threshold else { return }
        let line = "\(level): \(message)\n"
        fputs(line, stderr)
    }

    public func error(_ message: String) { log(.error, message) }
    public func warning(_ message: String) { log(.warning, message) }
    public func info(_ message: String) { log(.info, message) }
    public func debug(_ message: String) { log(.debug, message) }
}
