#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import CLinuxEvents

/// Starts a detached POSIX thread that runs `body` once: for the loop's few helpers (a blocking
/// broker connect, a test's loop). A plain pthread rather than Foundation's `Thread`, so that the
/// agent links FoundationEssentials only, not all of Foundation (and ICU): megabytes of resident
/// memory on a small board.
public enum DetachedThread {
    private final class Work {
        let name: String
        let body: @Sendable () -> Void
        init(_ name: String, _ body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// The thread inherits the caller's signal mask (the loop blocks its signals before starting any).
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Work(name, body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { context in
            let work = Unmanaged<Work>.fromOpaque(context!).takeRetainedValue()
            _ = clinux_name_this_thread(work.name)
            work.body()
            return nil
        }, context)
        guard rc == 0 else {
            // No thread: run it here rather than lose it (only under resource exhaustion).
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
            return
        }
        pthread_detach(thread)
    }
}
