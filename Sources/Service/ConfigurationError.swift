/// A configuration problem that has no line in a file (a missing file, an unreadable password file).
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
