import Synchronization

/// Collects output lines from code that reports through `@Sendable` closures (a command's console).
public final class Lines: Sendable {
    private let list = Mutex<[String]>([])
    public init() {}
    public func append(_ line: String) { list.withLock { $0.append(line) } }
    public var all: [String] { list.withLock { $0 } }
    public var text: String { all.joined(separator: "\n") }
}
