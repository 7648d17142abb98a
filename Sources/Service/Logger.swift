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
        guard message.unicodeScalars.contains(where: { $0 == "\n" || needsEscape($0) }) else { return message }
        var out = ""
        for scalar in message.unicodeScalars {
            if scalar == "\n" {
                out += "\n\(level):   "
            } else if needsEscape(scalar) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return (v < 0x20 && scalar != "\t" && scalar != "\n") || (0x7F...0x9F).contains(v)
            || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    public func error(_ message: String) { log(.error, message) }
    public func warning(_ message: String) { log(.warning, message) }
    public func info(_ message: String) { log(.info, message) }
    public func debug(_ message: String) { log(.debug, message) }
}
