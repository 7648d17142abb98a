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
        let line = "\(level): \(Self.entry(message, level: level))\n"
        fputs(line, stderr)
    }

    /// `message` as one entry, whatever names from the network or a file it quotes: a line after
    /// a newline is indented under the entry's level (a name with a newline in it cannot pass for
    /// an entry of its own), and the other characters that could hide or fake text on a terminal
    /// (C0 controls but the tab, DEL, C1, bidirectional overrides) are written as `\u{…}`.
    static func entry(_ message: String, level: LogLevel) -> String {
        guard message.unicodeScalars.contains(where: { $0 != "\t" && Excerpt.hidesText($0) }) else { return message }
        return message.split(separator: "\n", omittingEmptySubsequences: false).map(Excerpt.printable).joined(separator: "\n\(level):   ")
    }

    public func error(_ message: String) { log(.error, message) }
    public func warning(_ message: String) { log(.warning, message) }
    public func info(_ message: String) { log(.info, message) }
    public func debug(_ message: String) { log(.debug, message) }
}
