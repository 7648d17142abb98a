#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// Where a command writes: its results (stdout) and its diagnostics (stderr), one line a call.
/// Tests and embedders pass their own; `@Sendable` because `doctor` reports from concurrent checks.
public struct Console: Sendable {
    public var output: @Sendable (String) -> Void
    public var errors: @Sendable (String) -> Void

    public init(output: @escaping @Sendable (String) -> Void, errors: @escaping @Sendable (String) -> Void) {
        self.output = output
        self.errors = errors
    }

    /// The process's stdout and stderr. Each line is flushed as it is written, so that a reader on
    /// a pipe sees `doctor`'s slow checks and `replay`'s paced events as they happen.
    public static let standard = Console(
        output: { line in
            fputs(line + "\n", stdout)
            fflush(stdout)
        },
        errors: { line in fputs(line + "\n", stderr) })
}
