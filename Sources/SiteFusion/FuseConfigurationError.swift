/// Every problem `FuseConfiguration.validate()` found, each with the key path it concerns, so that
/// one run of `uwb2mqtt fuse` (or `check`) shows them all.
public struct FuseConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Problem: Hashable, Sendable, CustomStringConvertible {
        /// The key path: `window`, `mqtt.url`, `zones[2].polygon`.
        public var path: String
        public var message: String

        public var description: String { "\(path): \(message)" }
    }

    public var problems: [Problem]

    public init(problems: [Problem]) { self.problems = problems }

    /// One problem per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
